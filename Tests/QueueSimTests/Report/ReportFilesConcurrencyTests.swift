import Crypto
import Foundation
import Testing

@testable import QueueSim

#if canImport(Glibc)
    import Glibc
#endif

/// `metrics.prom` is written on a thread of its own while the other reports are (issue 51): a
/// file that cannot be written must still fail the run with that file's error, in the order
/// the files were written one after the other, and never let run.json be written.
@Suite("report files: metrics.prom beside the others")
struct ReportFilesConcurrencyTests {
    /// A recorder of three visitors whose `blocked` files cannot be created (a directory stands
    /// at each one's temporary path).
    static func recorder(blocking blocked: [String]) throws -> (Recorder, String) {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        for index in 0..<3 { try recorder.record(queuedVisitor(index, enqueueMs: 10, waitMs: 2_000)) }
        for file in blocked {
            try FileManager.default.createDirectory(
                atPath: AtomicFileWriter.temporaryPath(for: Recorder.path(directory, file)),
                withIntermediateDirectories: false)
        }
        return (recorder, directory)
    }

    static func cannotOpen(_ directory: String, _ file: String) -> ReportWriteError {
        .cannotOpen(path: AtomicFileWriter.temporaryPath(for: Recorder.path(directory, file)), errno: EISDIR)
    }

    static func exists(_ directory: String, _ file: String) -> Bool {
        FileManager.default.fileExists(atPath: Recorder.path(directory, file))
    }

    @Test("metrics.prom that cannot be written fails finish with its path; run.json is not written")
    func metricsFailure() throws {
        let (recorder, directory) = try Self.recorder(blocking: [Recorder.metricsFile])
        #expect(throws: Self.cannotOpen(directory, Recorder.metricsFile)) { try recorder.finish(ending(at: 5_000)) }
        #expect(!Self.exists(directory, Recorder.manifestFile))
        // The run stays marked unfinished, for `recover`.
        #expect(Self.exists(directory, Recorder.pendingFile))
    }

    @Test("a table that cannot be written is the error, not metrics.prom's, and no thread writes after finish")
    func tableFailureComesFirst() throws {
        let (recorder, directory) = try Self.recorder(blocking: [Recorder.summaryFile, Recorder.metricsFile])
        #expect(throws: Self.cannotOpen(directory, Recorder.summaryFile)) { try recorder.finish(ending(at: 5_000)) }
        #expect(!Self.exists(directory, Recorder.manifestFile))
        // The other threads were joined: no file of theirs is left half-written.
        let temporary = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
        #expect(temporary.sorted() == ["metrics.prom.tmp", "summary.csv.tmp"])
    }

    @Test("metrics.prom's failure comes before report.html's, as when it was written first")
    func metricsFailureBeforePage() throws {
        let (recorder, directory) = try Self.recorder(blocking: [Recorder.pageFile, Recorder.metricsFile])
        #expect(throws: Self.cannotOpen(directory, Recorder.metricsFile)) { try recorder.finish(ending(at: 5_000)) }
        #expect(!Self.exists(directory, Recorder.manifestFile))
    }

    @Test("report.html's failure is the error when metrics.prom was written")
    func pageFailure() throws {
        let (recorder, directory) = try Self.recorder(blocking: [Recorder.pageFile])
        #expect(throws: Self.cannotOpen(directory, Recorder.pageFile)) { try recorder.finish(ending(at: 5_000)) }
        #expect(!Self.exists(directory, Recorder.manifestFile))
        // Finished before finish returned: complete, not a temporary file.
        #expect(Self.exists(directory, Recorder.metricsFile))
    }

    @Test("the files are those written one after the other: run.json lists metrics.prom's size and SHA-256")
    func manifestListsTheMetricsFile() throws {
        let (recorder, directory) = try Self.recorder(blocking: [])
        _ = try recorder.finish(ending(at: 5_000))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.metricsFile)))
        let manifest = try JSONDecoder().decode(
            RunManifest.self,
            from: Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.manifestFile))))
        #expect(manifest.files[Recorder.metricsFile]?.bytes == bytes.count)
        #expect(
            manifest.files[Recorder.metricsFile]?.sha256
                == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        #expect(!Self.exists(directory, Recorder.metricsFile + ".tmp"))
    }
}

/// run.json's largest members are rendered while the second thread writes (issue 51): the file
/// must be what encoding the whole manifest in one go writes.
@Suite("report files: run.json's members rendered ahead")
struct RenderedMembersTests {
    @Test("run.json with its groups rendered ahead is the manifest encoded in one go, shard or not")
    func renderedAheadIsTheWholeEncoding() throws {
        for shard in [nil, PlanShard(index: 1, count: 2)] {
            let directory = try makeReportDirectory()
            var description = describeRun(groups: ["app", "invited", "quote \" group"])
            description.shard = shard.map {
                ShardIdentity(shard: $0, visitorsOverride: nil, plannedVisitors: 6, shardVisitors: 3)
            }
            let recorder = try Recorder(directory: directory, description: description)
            for index in 0..<6 where shard.map({ $0.owns(index) }) ?? true {
                try recorder.record(
                    queuedVisitor(index, group: ["app", "invited"][index % 2], enqueueMs: 10, waitMs: 2_000))
            }
            _ = try recorder.finish(ending(at: 5_000))
            let written = try readReport(directory, Recorder.manifestFile)
            let manifest = try JSONDecoder().decode(RunManifest.self, from: Data(written.utf8))
            #expect(manifest.groups.count == 3)
            #expect(try manifest.json() == written)
            if shard != nil { #expect(manifest.files[ShardReport.file] != nil) }
        }
    }
}
