import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 6, item 4: the same scenario and seed give byte-identical visitors.csv, summary.csv
/// and timeline.csv, and a run.json that differs only in its wall-clock fields.
@Suite("Virtual runs are deterministic")
struct VirtualDeterminismTests {
    /// Poisson arrivals, two groups (one through a proxy entrance), a pre-queue shuffled at
    /// event start, latency with jitter, a window of enqueue 503s, a window of slow queue pages,
    /// a mode flip and a hard stop that leaves visitors queued.
    static let scenario = """
        version: 1
        name: determinism
        seed: 1234
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 3m }
        arrivals:
          process: poisson
          phases:
            - { duration: 20s, rate: 20 }
            - { burst: 300 }
            - { duration: 60s, rate: 10, rampTo: 30 }
        visitors:
          - { name: app, weight: 3 }
          - { name: partner, weight: 1, waitingRoomDomain: queue.partner.example, queuePathPrefix: q }
        waitingRoom:
          eventStart: 20s
          outflow: 900/min
          latency: { enqueue: 40ms, queuePage: 15ms, jitter: 10ms }
          faults:
            - { from: 25s, to: 35s, endpoint: enqueue, status: 503, rate: 30% }
            - { from: 40s, to: 50s, endpoint: queuePage, latency: 1500ms, jitter: 400ms }
            - { from: 70s, to: 75s, mode: disabled }
        run:
          duration: 100s
        """

    static let identicalFiles = [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile]

    @Test("Two runs of a seeded scenario write the same report bytes")
    func twoRunsSameBytes() throws {
        let first = try VirtualRun.run(Self.scenario, label: "determinism-first")
        let second = try VirtualRun.run(Self.scenario, label: "determinism-second")
        #expect(first.report.visitorCount > 1_500)
        // The scenario exercises what it claims to: retries, a pass-through mode, queued at the end.
        #expect((first.report.outcomeCounts[.passed] ?? 0) > 0)
        #expect((first.report.outcomeCounts[.disabled] ?? 0) > 0)
        #expect((first.report.outcomeCounts[.queued] ?? 0) > 0)
        let rows = try VirtualRun.visitors(first.directory)
        #expect(rows.contains { Int($0.cells["attempts"] ?? "") ?? 0 > 1 })
        #expect(Set(rows.map(\.group)) == ["app", "partner"])

        for file in Self.identicalFiles {
            let a = try VirtualRun.bytes(first.directory, file)
            let b = try VirtualRun.bytes(second.directory, file)
            #expect(a == b, "\(file) differs between two runs")
        }
        let manifests = try [first.directory, second.directory].map { directory in
            var object = try #require(
                try JSONSerialization.jsonObject(with: VirtualRun.bytes(directory, Recorder.manifestFile))
                    as? [String: Any])
            #expect(object["started_at"] != nil && object["ended_at"] != nil)
            #expect(object["run_id"] as? String != nil)
            object["started_at"] = nil
            object["ended_at"] = nil
            object["run_id"] = nil  // one per run, by design: it names the run's set of files
            // report.html shows the start, end and run id, so its hash is the run's own too.
            var files = try #require(object["files"] as? [String: Any])
            #expect(files[Recorder.pageFile] != nil)
            files[Recorder.pageFile] = nil
            // metrics.prom labels every sample with the run id and times it by the run's end
            // (its samples' values are compared in MetricsFileTests).
            #expect(files[Recorder.metricsFile] != nil)
            files[Recorder.metricsFile] = nil
            object["files"] = files
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        #expect(manifests[0] == manifests[1], "run.json differs beyond started_at, ended_at and run_id")
        let pages = try [first.directory, second.directory].map { directory in
            String(decoding: try VirtualRun.bytes(directory, Recorder.pageFile), as: UTF8.self)
                .split(separator: "\n").filter {
                    !$0.contains("(UTC)") && !$0.contains("<title>queuesim:") && !$0.hasPrefix("<footer>")
                }
        }
        #expect(pages[0] == pages[1], "report.html differs beyond its start, end and run id")
    }

    @Test("Another seed gives another run")
    func seedMatters() throws {
        let first = try VirtualRun.run(Self.scenario, label: "determinism-seed-a")
        let reseeded = Self.scenario.replacingOccurrences(of: "seed: 1234", with: "seed: 4321")
        let second = try VirtualRun.run(reseeded, label: "determinism-seed-b")
        #expect(
            try VirtualRun.bytes(first.directory, Recorder.visitorsFile)
                != VirtualRun.bytes(second.directory, Recorder.visitorsFile))
    }
}
