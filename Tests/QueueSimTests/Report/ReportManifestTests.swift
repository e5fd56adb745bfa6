import Foundation
import QueueClientCore
import TestSeeds
import Testing

@testable import QueueSim

@Suite("run.json and determinism")
struct ReportManifestTests {
    @Test("run.json carries the run's identity, counts, verdicts and exit code")
    func manifest() throws {
        let directory = try makeReportDirectory()
        let thresholds = [
            Threshold(
                metric: .outcomeRatio(.passed), comparator: .greaterOrEqual, limit: 0.99,
                source: "passed >= 99%"),
            Threshold(
                metric: .timing(.wait, .percentile(95)), comparator: .lessThan, limit: 300_000,
                source: "wait.p95 < 5m"),
        ]
        let recorder = try Recorder(
            directory: directory, description: describeRun(thresholds: thresholds))
        try recorder.record(directVisitor(0, enqueueMs: 10, outcome: .passed))
        try recorder.record(directVisitor(1, enqueueMs: 10, outcome: .error, status: 400))
        recorder.recordRequest(at: at(1))
        recorder.recordRequest(at: at(2))
        let report = try recorder.finish(ending(at: 61_250))
        #expect(report.exitStatus == .thresholdFailed)

        let data = try Data(
            contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.manifestFile)))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(json.keys) == [
                "scenario", "scenario_file", "scenario_sha256", "seed", "clock", "queuesim_version",
                "started_at", "ended_at", "duration_ms", "visitors", "outcomes", "requests",
                "thresholds", "exit_code", "interrupted", "run_id", "files", "endpoint", "timeline_marks",
                "command_line", "overrides", "groups", "overall", "set", "after_pass", "abandoned_share",
                "comebacks",
            ])
        // No `--set`: the digest is of exactly what ran.
        #expect(json["set"] as? [String] == [])
        #expect(json["run_id"] as? String == "20250301T120000Z-0000")
        #expect(json["scenario"] as? String == "launch")
        #expect(json["scenario_file"] as? String == "scenarios/launch.yaml")
        #expect(json["seed"] as? Int == 42)
        #expect(json["clock"] as? String == "virtual")
        #expect(json["queuesim_version"] as? String == QueueSimVersion.current)
        #expect(json["started_at"] as? String == "2023-11-14T22:13:20.000Z")
        #expect(json["ended_at"] as? String == "2023-11-14T22:14:20.250Z")
        #expect(json["duration_ms"] as? Int == 61_250)
        #expect(json["visitors"] as? Int == 2)
        #expect(json["requests"] as? Int == 2)
        #expect(json["exit_code"] as? Int == 1)
        #expect(json["interrupted"] as? Bool == false)
        let outcomes = try #require(json["outcomes"] as? [String: Int])
        #expect(outcomes.count == VisitorOutcome.allCases.count)
        #expect(outcomes["passed"] == 1 && outcomes["error"] == 1 && outcomes["queued"] == 0)

        let verdicts = try #require(json["thresholds"] as? [[String: Any]])
        #expect(verdicts.count == 2)
        #expect(verdicts[0]["threshold"] as? String == "passed >= 99%")
        #expect(verdicts[0]["measured"] as? Double == 0.5)
        #expect(verdicts[0]["passed"] as? Bool == false)
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["app", "invited"])
        let app = try #require(groups.first)
        #expect(app["visitors"] as? Int == 2)
        #expect((app["outcomes"] as? [String: Int])?["error"] == 1)
        #expect((app["enqueue_ms"] as? [String: Any])?["p50"] as? Int == 10)
        #expect((json["overall"] as? [String: Any])?["visitors"] as? Int == 2)
        // Nobody waited: the value is an explicit null and the threshold fails.
        #expect(verdicts[1]["measured"] is NSNull)
        #expect(verdicts[1]["passed"] as? Bool == false)
    }

    /// The recorder writes run.json in parts (`files` put in between once metrics.prom and
    /// report.html are written): the file is the manifest's own encoding, byte for byte.
    @Test("run.json written around its files is the manifest's own bytes")
    func manifestWrittenAroundItsFiles() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(directVisitor(0, enqueueMs: 10, outcome: .passed))
        try recorder.record(directVisitor(1, enqueueMs: 30, outcome: .error, status: 503))
        recorder.recordRequest(at: at(1))
        _ = try recorder.finish(ending(at: 61_250))
        let written = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.manifestFile)))
        var manifest = try RunManifest.read(written)
        #expect(
            manifest.files.keys.sorted() == [
                "metrics.prom", "report.html", "summary.csv", "timeline.csv", "visitors.csv",
            ])
        #expect(Array(written) == (try manifest.jsonBytes()))
        let parts = try manifest.renderedAroundFiles()
        #expect(Array(written) == (try RunManifest.bytes(files: manifest.files, around: parts)).flatMap { $0 })
    }

    @Test("an interrupted run exits 130 and says so")
    func interrupted() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(
            VisitorRecord(
                index: 0, group: "app", flow: "run", arrival: at(0), start: at(0), outcome: .interrupted,
                ended: at(400)))
        let report = try recorder.finish(ending(at: 400, interrupted: true))
        #expect(report.exitStatus == .interrupted)
        let manifest = try readReport(directory, Recorder.manifestFile)
        #expect(manifest.contains("\"exit_code\" : 130"))
        #expect(manifest.contains("\"interrupted\" : true"))
    }

    @Test("the same visitors finishing in a different order give byte-identical reports")
    func finishOrderDoesNotMatter() throws {
        var records = (0..<300).map { index in
            index % 3 == 0
                ? directVisitor(
                    index, group: index % 2 == 0 ? "app" : "invited", arrival: index * 37,
                    enqueueMs: index % 50, outcome: .disabled)
                : queuedVisitor(
                    index, group: index % 2 == 0 ? "app" : "invited", arrival: index * 37,
                    enqueueMs: index % 70, waitMs: index * 11)
        }
        func write(_ records: [VisitorRecord]) throws -> [String] {
            let directory = try makeReportDirectory()
            let recorder = try Recorder(directory: directory, description: describeRun())
            for record in records {
                try recorder.record(record)
                recorder.recordRequest(at: record.start)
            }
            _ = try recorder.finish(ending(at: 15_000))
            return try [
                Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile, Recorder.manifestFile,
            ]
            .map { try readReport(directory, $0) }
        }
        let inOrder = try write(records)
        var generator = SplitMix64(seed: 7)
        records.shuffle(using: &generator)
        #expect(try write(records) == inOrder)
    }
}
