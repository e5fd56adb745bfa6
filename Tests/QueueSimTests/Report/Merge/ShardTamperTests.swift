import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// A shard folder whose `shard.json`, `run.json` and `visitors.csv` disagree is refused by
/// `merge`, naming the folder, the file and what disagrees: the merge's figures come from the
/// rows, and nothing a file says about them is taken on trust.
@Suite("queuesim merge: a tampered shard is refused")
struct ShardTamperTests {
    /// Every visitor waits 2 s, so `wait.p95 < 1s` fails on honest shards.
    static let thresholds = [try! ThresholdParser.parse("wait.p95 < 1s").get()]

    /// Two shards of 40 visitors (20 each), every one queued for 2 s.
    private func shards() throws -> [String] {
        let records = (0..<40).map { index in
            queuedVisitor(index, arrival: index * 50, enqueueMs: 30 + index, waitMs: 2_000)
        }
        return try (0..<2).map { index in
            let directory = try makeReportDirectory("tamper\(index)")
            let shard = PlanShard(index: index, count: 2)!
            var description = describeRun(thresholds: Self.thresholds)
            description.shard = ShardIdentity(
                shard: shard, visitorsOverride: nil, plannedVisitors: 40, shardVisitors: 20)
            let recorder = try Recorder(directory: directory, description: description)
            for record in records where shard.owns(record.index) { try recorder.record(record) }
            _ = try recorder.finish(ending(at: 10_000))
            return directory
        }
    }

    /// The merge's refusal in words, or nil when it merged.
    private func refusal(_ folders: [String]) throws -> String? {
        let merged = try makeReportDirectory("merged")
        do {
            _ = try ShardMerge.write(
                try ShardSet(folders: folders, allowPartial: false), into: merged, runId: "t", commandLine: [])
        } catch let failure as ShardSet.Failure {
            // Refused before anything is written.
            #expect(try FileManager.default.contentsOfDirectory(atPath: merged).isEmpty)
            return failure.description
        }
        return nil
    }

    private func edit(_ folder: String, _ file: String, _ change: (String) -> String) throws {
        let path = Recorder.path(folder, file)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let after = change(before)
        #expect(after != before, "the edit of \(file) changed nothing")
        try after.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("honest shards merge, and the waits of 2 s fail wait.p95 < 1s")
    func honest() throws {
        let merged = try makeReportDirectory("honest")
        let result = try ShardMerge.write(
            try ShardSet(folders: try shards(), allowPartial: false), into: merged, runId: "t", commandLine: [])
        #expect(result.verdicts.map(\.passed) == [false])
        #expect(result.exitStatus == .thresholdFailed)
    }

    @Test("wait buckets divided by 10 in shard.json (a FAIL made a PASS) are refused")
    func bucketsDividedByTen() throws {
        let folders = try shards()
        let path = Recorder.path(folders[1], ShardReport.file)
        var report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as! [String: Any]
        var histograms = report["histograms"] as! [[String: Any]]
        for index in histograms.indices where histograms[index]["metric"] as? String == "wait_ms" {
            var histogram = histograms[index]["histogram"] as! [String: Any]
            histogram["buckets"] = (histogram["buckets"] as! [[Int]]).map { [$0[0] / 10, $0[1]] }
            histogram["min"] = (histogram["min"] as! Int) / 10
            histogram["max"] = (histogram["max"] as! Int) / 10
            histograms[index]["histogram"] = histogram
        }
        report["histograms"] = histograms
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: path))
        let refused = try #require(try refusal(folders))
        #expect(
            refused
                == "\(folders[1]): shard.json's wait histogram (group app, outcome passed) does not match the waits in visitors.csv (wait_ms)"
        )
    }

    @Test("a row's wait_ms edited (the histogram still says 2 s) is refused")
    func editedWait() throws {
        let folders = try shards()
        try edit(folders[0], Recorder.visitorsFile) { $0.replacingOccurrences(of: ",2000,", with: ",200,") }
        let refused = try #require(try refusal(folders))
        #expect(
            refused.hasPrefix("\(folders[0]): shard.json's wait histogram (group app, outcome passed)"), "\(refused)")
    }

    @Test("shard_visitors 19 against 20 rows is refused")
    func shardVisitors() throws {
        let folders = try shards()
        try edit(folders[1], ShardReport.file) {
            $0.replacingOccurrences(of: #""shard_visitors":20"#, with: #""shard_visitors":19"#)
        }
        #expect(try refusal(folders) == "\(folders[1]): shard.json says 19 visitors, visitors.csv has 20 rows")
    }

    @Test("a run.json seed that differs from shard.json's is refused")
    func manifestSeed() throws {
        let folders = try shards()
        try edit(folders[0], Recorder.manifestFile) {
            $0.replacingOccurrences(of: #""seed" : 42"#, with: #""seed" : 7"#)
        }
        #expect(try refusal(folders) == "\(folders[0]): run.json seed 7, shard.json seed 42")
    }

    @Test("run.json counting other outcomes than the rows is refused")
    func manifestOutcomes() throws {
        let folders = try shards()
        try edit(folders[0], Recorder.manifestFile) {
            $0.replacingOccurrences(of: #""passed" : 20"#, with: #""passed" : 19"#)
        }
        #expect(try refusal(folders) == "\(folders[0]): run.json counts 19 passed, visitors.csv has 20 such rows")
    }

    @Test("an inconsistent answers histogram in shard.json is refused as the shard's (exit 2), not a write failure")
    func inconsistentAnswers() throws {
        let folders = try shards()
        // Answers in both shards (a merge uses them only when every shard has them); the first
        // shard's histogram counts 5 values but holds 1.
        for (folder, count) in zip(folders, [5, 1]) {
            let path = Recorder.path(folder, ShardReport.file)
            var report =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as! [String: Any]
            let histogram: [String: Any] = ["digits": 3, "count": count, "min": 1, "max": 1, "buckets": [[1, 1]]]
            report["answers"] = [
                "cells": [["endpoint": "enqueue", "status": 200, "histogram": histogram]], "per_second": [],
                "queue_page_bin_seconds": 1, "queue_page_bins": [],
            ]
            try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: path))
        }
        let refused = try #require(try refusal(folders))
        #expect(refused.hasPrefix("\(folders[0]): shard.json's answers: "), "\(refused)")
    }
}
