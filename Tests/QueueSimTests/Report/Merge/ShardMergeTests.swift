import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Shards recorded apart and merged give the files one recorder of every visitor writes.
@Suite("queuesim merge: shard reports put together")
struct ShardMergeTests {
    static let thresholds = [
        try! ThresholdParser.parse("passed >= 60%").get(),
        try! ThresholdParser.parse("wait.p95 < 50s").get(),
        try! ThresholdParser.parse("invited: enqueue.p99 < 2s").get(),
    ]

    /// 90 visitors of two groups with spread-out timings and several outcomes.
    static let records: [VisitorRecord] = (0..<90).map { index in
        let group = index % 4 == 0 ? "invited" : "app"
        let arrival = index * 137
        switch index % 9 {
        case 0:
            return directVisitor(
                index, group: group, arrival: arrival, enqueueMs: 15_000, outcome: .unavailable, status: 503)
        case 1: return directVisitor(index, group: group, arrival: arrival, enqueueMs: 40 + index, outcome: .disabled)
        default:
            return queuedVisitor(
                index, group: group, arrival: arrival, enqueueMs: 20 + (index * 37) % 900,
                waitMs: (index * 7919) % 61_000)
        }
    }

    static func requests(of record: VisitorRecord) -> (second: Int, count: Int) {
        (Int(record.arrival.sinceOrigin.components.seconds), record.requests)
    }

    private func record(
        _ records: [VisitorRecord], into directory: String, shard: ShardIdentity?, seed: UInt64 = 42,
        sha: String = String(repeating: "ab", count: 32)
    ) throws {
        var description = describeRun(thresholds: Self.thresholds, seed: seed)
        description.scenarioSHA256 = sha
        description.shard = shard
        let recorder = try Recorder(directory: directory, description: description)
        // Answers and new connections as an engine counts them, so the merge has them to put together.
        var answers = RequestStatistics()
        var connections = PerSecondCounts()
        // Calls behind the queue by the visitors who passed, a second after they did.
        var afterPass = PerSecondCounts()
        for record in records.reversed() {
            if record.outcome == .passed { afterPass.add(at: Int(record.ended.sinceOrigin.components.seconds) + 1, 3) }
            try recorder.record(record)
            let (second, count) = Self.requests(of: record)
            recorder.recordRequests(count, inSecond: second)
            answers.answered(
                .enqueue, status: .init(code: record.httpStatus ?? 200),
                milliseconds: UInt64(record.enqueueMilliseconds ?? 5), inSecond: second)
            if record.queueEntered != nil {
                answers.answered(
                    .queuePage, status: .ok, milliseconds: UInt64(record.index * 13 % 900), inSecond: second + 1,
                    count: 2)
            }
            connections.add(at: second, 1 + record.index % 3)
        }
        recorder.recordAnswers(answers)
        recorder.recordConnections(connections)
        recorder.recordAfterPassRequests(afterPass)
        _ = try recorder.finish(ending(at: 80_000))
    }

    /// Shard folders of the visitors above, `count` shards (those in `only`, default all).
    private func shards(
        _ count: Int, only: [Int]? = nil, seed: (Int) -> UInt64 = { _ in 42 },
        sha: (Int) -> String = { _ in String(repeating: "ab", count: 32) }
    ) throws -> [String] {
        try (only ?? Array(0..<count)).map { index in
            let directory = try makeReportDirectory("shard\(index)")
            let shard = PlanShard(index: index, count: count)!
            let identity = ShardIdentity(
                shard: shard, visitorsOverride: nil, plannedVisitors: Self.records.count,
                shardVisitors: shard.share(of: Self.records.count))
            try record(
                Self.records.filter { shard.owns($0.index) }, into: directory, shard: identity, seed: seed(index),
                sha: sha(index))
            return directory
        }
    }

    /// One type per file (issue 54): shard.json and the merged run.json read back as the types
    /// that wrote them and write again to the same bytes, which are JSONEncoder's.
    @Test("shard.json and the merged run.json read back and write again to the same bytes")
    func schemaRoundTrip() throws {
        let folders = try shards(2)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for folder in folders {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(folder, ShardReport.file)))
            let report = try JSONDecoder().decode(ShardReport.self, from: bytes)
            #expect(Data(try report.json().utf8) == bytes)
            #expect(try foundation.encode(report) + Data("\n".utf8) == bytes)
        }
        let merged = try makeReportDirectory("merged-schema")
        _ = try ShardMerge.write(
            try ShardSet(folders: folders, allowPartial: false), into: merged, runId: "merge-test",
            commandLine: ["queuesim", "merge"])
        let runJSON = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(merged, Recorder.manifestFile)))
        let manifest = try RunManifest.read(runJSON)
        #expect(manifest.shards?.merged == [0, 1] && manifest.mergedFrom == 2)
        #expect(Data(try manifest.json().utf8) == runJSON)
    }

    @Test("merged visitors, summary and timeline are the single recorder's, byte for byte")
    func exactMerge() throws {
        let whole = try makeReportDirectory("whole")
        try record(Self.records, into: whole, shard: nil)
        let merged = try makeReportDirectory("merged")
        let set = try ShardSet(folders: try shards(3).reversed(), allowPartial: false)
        let result = try ShardMerge.write(set, into: merged, runId: "merge-test", commandLine: ["queuesim", "merge"])
        for file in [Recorder.visitorsFile, Recorder.summaryFile] {
            #expect(try readReport(merged, file) == readReport(whole, file), "\(file)")
        }
        // The timeline's `time_utc` is the merge's own start; every other column is the same.
        func withoutTime(_ text: String) -> [String] {
            let rows = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let time = rows[0].firstIndex(of: "time_utc")!
            return rows.map { row in row.enumerated().filter { $0.offset != time }.map(\.element).joined(separator: ",")
            }
        }
        #expect(
            withoutTime(try readReport(merged, Recorder.timelineFile))
                == withoutTime(try readReport(whole, Recorder.timelineFile)))
        #expect(result.visitors == Self.records.count)
        let wholeManifest =
            try JSONSerialization.jsonObject(with: Data(readReport(whole, Recorder.manifestFile).utf8))
            as! [String: Any]
        let mergedManifest =
            try JSONSerialization.jsonObject(with: Data(readReport(merged, Recorder.manifestFile).utf8))
            as! [String: Any]
        for key in [
            "thresholds", "groups", "overall", "outcomes", "requests", "visitors", "exit_code", "requests_by_endpoint",
            "queue_page_latency_ms", "after_pass", "abandoned_share", "comebacks",
        ] {
            #expect(
                (try JSONSerialization.data(
                    withJSONObject: wholeManifest[key]!, options: [.sortedKeys, .fragmentsAllowed]))
                    == (try JSONSerialization.data(
                        withJSONObject: mergedManifest[key]!, options: [.sortedKeys, .fragmentsAllowed])),
                "\(key)")
        }
        let afterPass = try #require(mergedManifest["after_pass"] as? [String: Any])
        #expect((afterPass["requests"] as? Int ?? 0) > 0, "\(afterPass)")
        let shardsEntry = try #require(mergedManifest["shards"] as? [String: Any])
        #expect(shardsEntry["missing"] as? [Int] == [])
        // The merged report says it is merged, from how many shards, and how each one started.
        #expect(mergedManifest["merged_from"] as? Int == 3)
        #expect(wholeManifest["merged_from"] == nil)
        #expect(result.merged.headline == "merged from 3 shards")
        #expect(result.merged.shardLines.count == 3)
        #expect(try readReport(merged, Recorder.pageFile).contains("This report was merged from 3 shards."))
        // The thresholds were judged on the merged data: one of the three fails, so exit 1.
        #expect(result.verdicts.map(\.passed).contains(false))
        #expect(result.exitStatus == .thresholdFailed)
    }

    /// metrics.prom of the merge: every shard's series under the merged run's id, which sum
    /// over `shard` to the whole run's.
    @Test("the merged metrics.prom holds every shard's series, summing to the whole run's")
    func mergedMetrics() throws {
        let whole = try makeReportDirectory("whole-metrics")
        try record(Self.records, into: whole, shard: nil)
        let merged = try makeReportDirectory("merged-metrics")
        let set = try ShardSet(folders: try shards(3), allowPartial: false)
        _ = try ShardMerge.write(set, into: merged, runId: "merge-test", commandLine: ["queuesim", "merge"])
        func finalVisitors(_ directory: String) throws -> (
            totals: [String: Double], runIds: Set<String>, shards: Set<String>
        ) {
            let series = try MetricsFileSeries.series(try readReport(directory, Recorder.metricsFile))
            var totals: [String: Double] = [:]
            var runIds: Set<String> = []
            var shards: Set<String> = []
            for one in series {
                let labels = Dictionary(uniqueKeysWithValues: one.labels.map { ($0.name, $0.value) })
                runIds.insert(labels["run_id"] ?? "")
                shards.insert(labels["shard"] ?? "")
                guard labels["__name__"] == "queuesim_visitors_total", let last = one.samples.last else { continue }
                totals["\(labels["group"] ?? "") \(labels["outcome"] ?? "")", default: 0] += last.value
            }
            return (totals, runIds, shards)
        }
        let mergedFigures = try finalVisitors(merged)
        let wholeFigures = try finalVisitors(whole)
        #expect(mergedFigures.runIds == ["merge-test"])
        #expect(mergedFigures.shards == ["0/3", "1/3", "2/3"])
        #expect(!wholeFigures.totals.isEmpty)
        #expect(mergedFigures.totals == wholeFigures.totals)
        let text = try readReport(merged, Recorder.metricsFile)
        // Each family once, the file closed as OpenMetrics requires.
        #expect(text.components(separatedBy: "# TYPE queuesim_visitors_total counter").count == 2)
        #expect(text.hasSuffix("# EOF\n"))
    }

    @Test("merge refuses shards of different scenarios, seeds or N, a shard twice, and missing shards")
    func refusals() throws {
        func failure(_ folders: [String], allowPartial: Bool = false) -> String? {
            do {
                _ = try ShardSet(folders: folders, allowPartial: allowPartial)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let three = try shards(3)
        #expect(failure(three) == nil)
        let otherScenario = try shards(3, only: [2], sha: { _ in String(repeating: "cd", count: 32) })
        #expect(failure([three[0], three[1]] + otherScenario)?.contains("ran a different scenario") == true)
        let otherSeed = try shards(3, only: [2], seed: { _ in 7 })
        #expect(failure([three[0], three[1]] + otherSeed)?.contains("planned with seed 7") == true)
        let ofFour = try shards(4, only: [3])
        #expect(failure(three + ofFour)?.contains("a shard of 4") == true)
        #expect(failure([three[0], three[1], three[1], three[2]])?.contains("shard 1 of 3 is given twice") == true)
        #expect(failure([three[0], three[2]])?.hasPrefix("shard 1 of 3 missing") == true)
        let fourOfFour = try shards(4, only: [0, 2])
        #expect(failure(fourOfFour)?.hasPrefix("shards 1, 3 of 4 missing") == true)
        #expect(failure([three[0], NSTemporaryDirectory()])?.contains("not the report of a sharded run") == true)
    }

    @Test("a glob of report folders (reports/shard-*) also names their run stores: those are skipped")
    func globOfReportFolders() {
        let glob = ["r/shard-0", "r/shard-0.runs", "r/shard-1", "r/shard-1.runs/", "r/shard-2"]
        #expect(ShardSet.reportFolders(glob) == ["r/shard-0", "r/shard-1", "r/shard-2"])
        // A store given without its report folder is kept, so it is refused by name.
        #expect(ShardSet.reportFolders(["r/shard-0.runs", "r/shard-1"]) == ["r/shard-0.runs", "r/shard-1"])
    }

    @Test("--allow-partial merges what is there and the report says which shards are missing")
    func partial() throws {
        let some = try shards(3, only: [0, 2])
        let merged = try makeReportDirectory("partial")
        let result = try ShardMerge.write(
            try ShardSet(folders: some, allowPartial: true), into: merged, runId: "partial", commandLine: [])
        #expect(result.missing == [1])
        #expect(result.visitors == Self.records.filter { $0.index % 3 != 1 }.count)
        let manifest = try readReport(merged, Recorder.manifestFile)
        #expect(manifest.contains("merged without shard(s) 1 of 3"))
        #expect(try readReport(merged, Recorder.pageFile).contains("merged without shard(s) 1 of 3"))
        // Never a pass: exit 5 (partial), whatever the thresholds measured on what is there.
        #expect(result.exitStatus == .partial)
        #expect(manifest.contains(#""exit_code" : 5"#) && manifest.contains(#""merged_from" : 2"#))
        #expect(result.merged.headline == "merged from 2 of 3 shards (PARTIAL: shard 1 missing)")
        // `queuesim report DIR` writes the page again from run.json: it still says so.
        try FileManager.default.removeItem(atPath: Recorder.path(merged, Recorder.pageFile))
        _ = try ReportRebuild.rebuild(merged)
        #expect(
            try readReport(merged, Recorder.pageFile).contains("merged from 2 of 3 shards (PARTIAL: shard 1 missing)"))
    }

    @Test("each merged shard's start lag and generator health, in words")
    func shardLines() {
        let summary = MergedShardsSummary(
            count: 3,
            shards: [
                .init(index: 0, startLagMs: 0, saturatedSeconds: 0),
                .init(index: 2, startLagMs: 2500, saturatedSeconds: 4),
            ], missing: [1])
        #expect(
            summary.shardLines == [
                "shard 0: start lag 0 ms, generator kept up (0 saturated seconds)",
                "shard 2: start lag 2500 ms, WARNING: generator saturated for 4 s (its timings include its own delay)"
                    + " — WARNING: started late, its first visitors too",
            ])
        let noStart = MergedShardsSummary(
            count: 1, shards: [.init(index: 0, startLagMs: nil, saturatedSeconds: nil)], missing: [])
        #expect(noStart.shardLines == ["shard 0: no common start, generator health not recorded"])
    }

    @Test("rows that do not match a shard's histograms are refused")
    func tampered() throws {
        let three = try shards(3)
        let path = Recorder.path(three[1], Recorder.visitorsFile)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: ",passed,", with: ",error,")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let merged = try makeReportDirectory("tampered")
        #expect(throws: ShardSet.Failure.self) {
            try ShardMerge.write(
                try ShardSet(folders: three, allowPartial: false), into: merged, runId: "t", commandLine: [])
        }
    }
}
