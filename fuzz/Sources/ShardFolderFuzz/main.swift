// libFuzzer target for merge's readers of a shard folder: shard.json (its histograms too),
// run.json and visitors.csv, read and checked against each other as `queuesim merge` does
// before it writes anything (ShardSet, ShardMerge.read). The three files are written to one
// folder per process and read back, the way merge meets them. Oracle: never traps or hangs,
// whatever the bytes.
// Input: shard.json, a NUL, run.json, a NUL, visitors.csv.
import Foundation

@testable import QueueSim

private let folder: String = {
    let path = NSTemporaryDirectory() + "shard-folder-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func shardFolderFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    let files = [ShardReport.file, Recorder.manifestFile, Recorder.visitorsFile]
    for (index, name) in files.enumerated() {
        let data = index < parts.count ? Data(parts[index]) : Data()
        guard FileManager.default.createFile(atPath: folder + "/" + name, contents: data) else {
            fatalError("cannot write \(folder)/\(name)")
        }
    }
    do {
        let shards = try ShardSet(folders: [folder], allowPartial: true)
        _ = try ShardMerge.read(shards)
    } catch {
        _ = "\(error)"
    }
    return 0
}
