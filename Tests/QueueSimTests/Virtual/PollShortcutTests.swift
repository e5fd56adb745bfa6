import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 6, item 6: skipping queue-page polls is allowed only where their effect is computed
/// exactly — every outcome, timing, `polls` count and `requests` figure the same as without.
@Suite("Poll shortcut is exact")
struct PollShortcutTests {
    /// Everything that can cut a forecast short: a pre-queue shuffled at event start, two
    /// entrances, Poisson arrivals, a window of enqueue 503s (retries), a window of queue-page
    /// 503s and one of slow queue pages, a one-second mode flip that lets through whoever polls in it, a `maxWait`
    /// that some visitors run into, and a hard stop that leaves others queued. Fault rates are
    /// 100 % and there is no jitter, so the room can forecast polls outside the windows.
    static let scenario = """
        version: 1
        name: shortcut
        seed: 77
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 3s, maxWait: 150s }
        arrivals:
          process: poisson
          phases:
            - { duration: 30s, rate: 10 }
            - { burst: 400 }
            - { duration: 90s, rate: 8, rampTo: 25 }
        visitors:
          - { name: app, weight: 4 }
          - { name: partner, weight: 1, waitingRoomDomain: queue.partner.example, queuePathPrefix: q }
        waitingRoom:
          eventStart: 30s
          outflow: 240/min
          latency: { enqueue: 35ms, queuePage: 12ms, jitter: 0ms }
          faults:
            - { from: 40s, to: 44s, endpoint: enqueue, status: 503 }
            - { from: 60s, to: 70s, endpoint: queuePage, status: 503 }
            - { from: 95s, to: 100s, endpoint: queuePage, latency: 2s }
            - { from: 100s, to: 101s, mode: disabled }
        run:
          duration: 200s
        """

    @Test("Reports are byte-identical with and without the shortcut")
    func identicalReports() throws {
        try expectIdenticalReports(Self.scenario, label: "shortcut")
    }

    /// Latency jitter and faults that fire at random draw from the visitor's own request count:
    /// the shortcut draws each skipped poll's jitter as the room would, and counts the polls as
    /// the visitor's requests so that its later draws keep their numbers.
    @Test("With jitter and random faults, reports are byte-identical with and without the shortcut")
    func identicalReportsWithDraws() throws {
        let drawn = Self.scenario
            .replacingOccurrences(of: "jitter: 0ms", with: "jitter: 7ms")
            .replacingOccurrences(
                of: "- { from: 40s, to: 44s, endpoint: enqueue, status: 503 }",
                with: "- { from: 40s, to: 44s, endpoint: enqueue, status: 503, rate: 0.5 }"
            )
            .replacingOccurrences(
                of: "- { from: 60s, to: 70s, endpoint: queuePage, status: 503 }",
                with: "- { from: 60s, to: 70s, endpoint: queuePage, status: 503, rate: 0.4 }")
        #expect(drawn.components(separatedBy: "rate: 0.").count == 3)
        try expectIdenticalReports(drawn, label: "shortcut-drawn")
    }

    private func expectIdenticalReports(_ scenario: String, label: String) throws {
        let fast = try VirtualRun.runCountingSkips(scenario, label: "\(label)-on", pollShortcut: true)
        let slow = try VirtualRun.runCountingSkips(scenario, label: "\(label)-off", pollShortcut: false)
        #expect(slow.skippedPolls == 0)
        // The shortcut did real work: a good share of the requests were never handed to the room.
        #expect(fast.skippedPolls > fast.report.requestCount / 4, "skipped \(fast.skippedPolls)")
        #expect(fast.report.requestCount == slow.report.requestCount)
        // The scenario reaches every cut-off it claims to.
        for outcome in [VisitorOutcome.passed, .disabled, .queued] {
            #expect((slow.report.outcomeCounts[outcome] ?? 0) > 0, "no \(outcome) visitors")
        }
        for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
            let a = try VirtualRun.bytes(fast.directory, file)
            let b = try VirtualRun.bytes(slow.directory, file)
            #expect(a == b, "\(file) differs with the shortcut")
        }
        // The polls it answered itself are answers like the room's: same table, same chart.
        func answers(_ directory: String) throws -> [String] {
            let manifest = try JSONSerialization.jsonObject(with: VirtualRun.bytes(directory, Recorder.manifestFile))
            let json = try #require(manifest as? [String: Any])
            return try ["requests_by_endpoint", "queue_page_latency_ms"].map { key in
                let value = try #require(json[key])
                return String(
                    decoding: try JSONSerialization.data(withJSONObject: value, options: .sortedKeys), as: UTF8.self)
            }
        }
        #expect(try answers(fast.directory) == answers(slow.directory))
    }

    /// A restart enqueues again, and tickets follow the order of the enqueues: polls at one
    /// instant must run in the order a poll-by-poll run gives them, which a shortcut cannot
    /// promise. So a queue-page `restartSession` rule turns forecasts off.
    @Test("No shortcut where a queue page can restart the session")
    func restartTurnsItOff() throws {
        let restarting = Self.scenario.replacingOccurrences(
            of: "- { from: 100s, to: 101s, mode: disabled }",
            with:
                "- { from: 100s, to: 101s, mode: disabled }\n    - { from: 120s, to: 125s, endpoint: queuePage, navigate: restartSession }"
        )
        #expect(restarting != Self.scenario)
        let run = try VirtualRun.runCountingSkips(restarting, label: "shortcut-restart")
        #expect(run.skippedPolls == 0)
        #expect((run.report.outcomeCounts[.passed] ?? 0) > 0)
    }

}

/// Without fault rules the shortcut counts a chain's stretch of `Retry-After: 30` polls at once
/// (`PollShortcut.steadyStretch`). Each bound that ends a stretch is reached here: turns;
/// `maxWait` (5 minutes: the burst's last 200 run into it); visitors who give up (one group's
/// patience); a second of `idle` at 330 s, a mode that lets everyone waiting through, so polls
/// in it are not forecast; and the run's hard stop, with the queue building up again after it.
/// Every report and every per-second figure of metrics.prom must match a run without the shortcut.
@Suite("Poll shortcut: steady stretches are exact")
struct SteadyStretchTests {
    static let scenario = """
        version: 1
        name: stretches
        seed: 31
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 5m }
        arrivals:
          process: poisson
          phases:
            - { burst: 500 }
            - { duration: 6m, rate: 2 }
        visitors:
          - { name: app, weight: 3 }
          - { name: restless, weight: 1, patience: { mean: 3m } }
        waitingRoom:
          outflow: 60/min
          latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
          faults:
            - { from: 330s, to: 331s, mode: idle }
        run:
          duration: 400s
        """

    @Test func identicalToPollByPoll() throws {
        let fast = try VirtualRun.runCountingSkips(Self.scenario, label: "stretch-on", pollShortcut: true)
        let slow = try VirtualRun.runCountingSkips(Self.scenario, label: "stretch-off", pollShortcut: false)
        #expect(fast.skippedPolls > fast.report.requestCount / 2, "skipped \(fast.skippedPolls)")
        #expect(fast.report.requestCount == slow.report.requestCount)
        for outcome in [VisitorOutcome.passed, .disabled, .queued, .abandoned] {
            #expect((slow.report.outcomeCounts[outcome] ?? 0) > 0, "no \(outcome) visitors")
        }
        for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
            #expect(try VirtualRun.bytes(fast.directory, file) == VirtualRun.bytes(slow.directory, file), "\(file)")
        }
        // Requests and answers per second, by endpoint, status and latency bucket: each series'
        // values in order (without the run id and the sample timestamps, which count from the
        // wall-clock start; a series of statuses is listed where its status was first seen,
        // which the shortcut sees earlier).
        func metrics(_ directory: String) throws -> [String: [Substring]] {
            let text = String(decoding: try VirtualRun.bytes(directory, Recorder.metricsFile), as: UTF8.self)
            var series: [String: [Substring]] = [:]
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: " ")
                series[String(parts[0]).replacing(/run_id="[^"]*"/, with: ""), default: []].append(parts[1])
            }
            return series
        }
        #expect(try metrics(fast.directory) == metrics(slow.directory))
    }
}

/// `steadyStretch` against the rules it stands for, poll by poll, with bounds placed at and
/// around the instants where a poll or its answer falls (the edges a run seldom hits: a give-up
/// in the 10 ms between a poll and its answer, a deadline on the answer's nanosecond).
@Suite("Poll shortcut: a steady stretch ends where the polls would")
struct SteadyStretchBoundsTests {
    @Test func matchesPollByPoll() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ below: Int64) -> Int64 {
            // SplitMix64: the same cases in every run.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int64((z ^ (z >> 31)) % UInt64(below))
        }
        let second: Int64 = 1_000_000_000
        for _ in 0..<20_000 {
            let latency = 1 + next(2 * second)
            let period = latency + WaitingRoomService.longestPollSeconds * second
            let offset = next(3 * period)
            // Somewhere near the k-th poll or its answer, give or take a few nanoseconds.
            func near() -> Int64 {
                offset + next(40) * period + [0, latency, 29 * second, period][Int(next(4))] + next(7) - 3
            }
            let bounds = PollShortcut.StretchBounds(
                turn: near(), horizon: next(3) == 0 ? nil : near(), deadline: next(3) == 0 ? nil : near(),
                giveUp: next(3) == 0 ? nil : near(), maxWait: near())
            var expected = 0
            var poll = offset
            while bounds.turn - poll > 29 * second, bounds.horizon.map({ poll < $0 }) ?? true,
                bounds.deadline.map({ poll + latency <= $0 }) ?? true,
                bounds.giveUp.map({ poll + latency < $0 }) ?? true,
                poll + period < bounds.maxWait
            {
                expected += 1
                poll += period
            }
            let counted = PollShortcut.steadyStretch(from: offset, period: period, latency: latency, bounds: bounds)
            #expect(counted == expected, "\(bounds), offset \(offset), latency \(latency)")
            if counted != expected { return }
        }
    }
}

/// The first queue-page load after enqueue is answered from the forecast too: with no faults,
/// the room itself handles exactly two requests per visitor (the enqueue and the poll at the
/// visitor's turn), and the reports still match a run without the shortcut.
@Suite("Poll shortcut answers the first load")
struct FirstLoadShortcutTests {
    static let scenario = """
        version: 1
        name: first-load
        seed: 5
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 1h }
        arrivals:
          phases: [ { burst: 300 } ]
        visitors: [ { name: app } ]
        waitingRoom:
          outflow: 60/min
          latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
        """

    @Test func roomHandlesTwoRequestsPerVisitor() throws {
        let fast = try VirtualRun.runCountingSkips(Self.scenario, label: "first-load-on", pollShortcut: true)
        let slow = try VirtualRun.runCountingSkips(Self.scenario, label: "first-load-off", pollShortcut: false)
        #expect(fast.report.outcomeCounts[.passed] == 300)
        #expect(fast.report.requestCount == slow.report.requestCount)
        #expect(fast.report.requestCount - fast.skippedPolls == 2 * 300)
        for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
            #expect(try VirtualRun.bytes(fast.directory, file) == VirtualRun.bytes(slow.directory, file), "\(file)")
        }
    }
}
