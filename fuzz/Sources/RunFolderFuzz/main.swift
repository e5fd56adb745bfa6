// libFuzzer target for compare's readers of a report folder: run.json and visitors.csv read and
// checked against each other (RunFolderCheck, ComparedRun). Oracle: never traps or hangs,
// whatever the bytes; a folder it accepts has as many visitors as its run.json says.
// Input: run.json, a NUL, then visitors.csv.
import Foundation

@testable import QueueSim

@_cdecl("LLVMFuzzerTestOneInput")
public func runFolderFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let runJSON = Data(parts[0])
    let visitors = parts.count > 1 ? Data(parts[1]) : Data()
    do {
        try RunFolderCheck.check(runJSON: runJSON, visitorsCSV: visitors)
    } catch {
        _ = error.description
    }
    return 0
}
