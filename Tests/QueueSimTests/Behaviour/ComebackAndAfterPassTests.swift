import Foundation
import Testing

@testable import QueueSim

/// Comebacks and after-pass calls on the virtual clock: counts and timings exact, the new
/// columns' bytes, the same bytes for the same seed and with or without the poll shortcut.
@Suite("patience, comeback, afterPass: counts, timings, bytes", .timeLimit(.minutes(2)))
struct ComebackAndAfterPassTests {
    static func scenario(visitors: String, room: String, burst: Int, seed: Int = 5) -> String {
        """
        version: 1
        name: behaviour
        seed: \(seed)
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: \(burst) } ] }
        visitors: \(visitors)
        waitingRoom: \(room)
        """
    }

    static let noLatency = "latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s }"

    /// 20 visitors at once, one turn a second (turn k at k s), patience 4.5 s: visitors 0–4 pass
    /// (each polls at its turn: `Retry-After` is the whole seconds to it). The other 15 give up at
    /// 4.5 s, all come back 10 s later (share 100 %) at the back of the queue (turns 20–34, from
    /// 20 s), give up again at 19 s, come back at 29 s (turns 35–49), give up at 33.5 s, and
    /// `max: 2` ends them there.
    @Test("comebacks: a new enqueue at the back, counted on the visitor's one row")
    func comebacks() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors:
                    "[ { name: app, patience: { fixed: 4500ms }, comeback: { share: 100%, after: { fixed: 10s }, max: 2 } } ]",
                room: "{ outflow: 60/min, \(Self.noLatency) }", burst: 20))
        reports.expectContract(arrivals: 20)
        #expect(reports.outcomes == ["passed": 5, "abandoned": 15])
        #expect(reports.visitors.header.last == "comebacks")
        for row in reports.visitors.rows {
            if row["outcome"] == "passed" {
                #expect(row["comebacks"] == "0")
                #expect(row["attempts"] == "1")
            } else {
                #expect(row["comebacks"] == "2")
                #expect(row["attempts"] == "3")
                #expect(row["start_ms"] == "0", "start_ms is the first start")
                #expect(row["enqueue_ms"] == "0", "enqueue_ms is the last attempt's")
                #expect(row["wait_ms"] == "4500", "wait_ms is the last stay on the queue page")
                #expect(row["total_ms"] == "33500", "total_ms runs from the arrival to the last give-up")
            }
        }
        #expect(reports.manifest["comebacks"] as? Int == 30)
        #expect(reports.manifest["abandoned_share"] as? Double == 0.75)
        // in_queue counts every stay: 15 in the queue at the end of seconds 14–18 (second try).
        let inQueue = reports.timeline.column("in_queue").compactMap(Int.init)
        #expect(inQueue[2] == 17 && inQueue[16] == 15 && inQueue[25] == 0 && inQueue[30] == 15)
        let abandoned = reports.timeline.column("abandoned").compactMap(Int.init)
        #expect(abandoned.reduce(0, +) == 15 && abandoned[33] == 15)
    }

    /// The run stops at 10 s while the 15 who gave up at 4.5 s wait to reopen the app (at
    /// 14.5 s): they left, so their rows say `abandoned`, the comeback that never came uncounted.
    @Test("the run ends before a comeback: the visitor's row is the attempt it gave up")
    func runEndsBeforeTheComeback() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors:
                    "[ { name: app, patience: { fixed: 4500ms }, comeback: { share: 100%, after: { fixed: 10s } } } ]",
                room: "{ outflow: 60/min, \(Self.noLatency) }", burst: 20) + "\nrun: { duration: 10s }\n")
        #expect(reports.outcomes == ["passed": 5, "abandoned": 15])
        for row in reports.visitors.rows where row["outcome"] == "abandoned" {
            #expect(row["comebacks"] == "0")
            #expect(row["total_ms"] == "4500")
            #expect(row["attempts"] == "1")
        }
        #expect(reports.manifest["comebacks"] as? Int == 0)
    }

    /// Everyone passes within 2 s, long before a patience of an hour runs out: the give-ups
    /// still on the calendar are stale and must not stretch the run (its timeline, run.json).
    @Test("patience that never runs out does not lengthen the run")
    func stalePatienceDoesNotLengthenTheRun() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors: "[ { name: app, patience: { fixed: 1h } } ]", room: "{ outflow: 60/min, \(Self.noLatency) }",
                burst: 3))
        #expect(reports.outcomes == ["passed": 3])
        #expect(reports.manifest["duration_ms"] as? Int == 2000)
        #expect(reports.timeline.rows.count == 2)
    }

    @Test("a visitor drawn out of the comeback share gives up for good")
    func comebackShareZero() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors:
                    "[ { name: app, patience: { fixed: 4500ms }, comeback: { share: 0%, after: { fixed: 10s } } } ]",
                room: "{ outflow: 60/min, \(Self.noLatency) }", burst: 20))
        #expect(reports.outcomes == ["passed": 5, "abandoned": 15])
        #expect(Set(reports.visitors.column("comebacks")) == ["0"])
        #expect(reports.visitors.column("total_ms").filter { $0 == "4500" }.count == 15)
    }

    /// Safetynet with room to spare: all ten pass at 0 s with a token. Each then calls the
    /// built-in protected API three times, 5 s apart: the first call presents the token (the
    /// connector answers 302 to strip it and sets its cookie; the app follows), the next two ride
    /// the cookie. 20 requests at 5 s, 10 at 10 s, 10 at 15 s (the run's end instant, folded
    /// into the last row, 14).
    @Test("afterPass: calls with the token, then the cookie, at the think times; counted apart")
    func afterPassCalls() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors: "[ { name: app, afterPass: { calls: 3, thinkTime: { fixed: 5s } } } ]",
                room: "{ mode: safetynet, outflow: 6000/min, \(Self.noLatency) }", burst: 10))
        #expect(reports.outcomes == ["passed": 10])
        let afterPass = reports.timeline.column("after_pass_requests").compactMap(Int.init)
        #expect(afterPass.count == 15)
        #expect(afterPass[5] == 20 && afterPass[10] == 10 && afterPass[14] == 10)
        #expect(afterPass.reduce(0, +) == 40)
        #expect(reports.timeline.column("protected_api_ok").compactMap(Int.init).reduce(0, +) == 40)
        let figures = reports.manifest["after_pass"] as? [String: Any]
        #expect(figures?["requests"] as? Int == 40)
        #expect(figures?["peak_requests_per_second"] as? Int == 20)
        #expect(figures?["peak_second"] as? Int == 5)
        // The row is the visitor's pass: its requests and total stop there.
        #expect(Set(reports.visitors.column("requests")) == ["1"])
        #expect(Set(reports.visitors.column("total_ms")) == ["0"])
        let page = try String(contentsOfFile: reports.report.pagePath, encoding: .utf8)
        #expect(page.contains("Load behind the queue"))
        #expect(page.contains("Peak load behind the queue: <strong>20 requests/s</strong>"))
    }

    @Test("afterPass: a no-show makes no call")
    func noShows() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                visitors: "[ { name: app, afterPass: { calls: 3, thinkTime: { mean: 5s }, noShow: 100% } } ]",
                room: "{ mode: safetynet, outflow: 6000/min, \(Self.noLatency) }", burst: 10))
        #expect(reports.outcomes == ["passed": 10])
        #expect(reports.timeline.column("after_pass_requests").compactMap(Int.init).reduce(0, +) == 0)
        #expect((reports.manifest["after_pass"] as? [String: Any])?["peak_second"] is NSNull)
    }

    static let mixed = scenario(
        visitors: """
            [ { name: app, weight: 3, patience: { lognormal: { median: 40s, sigma: 0.8 } },
                comeback: { share: 30%, after: { mean: 20s } }, afterPass: { calls: 4, thinkTime: { mean: 8s }, noShow: 10% } },
              { name: plain, weight: 1 } ]
            """,
        room: "{ outflow: 300/min, latency: { enqueue: 20ms, queuePage: 10ms, jitter: 5ms } }", burst: 600)

    @Test("the same seed gives the same bytes, with or without the poll shortcut")
    func determinism() throws {
        let first = try VirtualRun.run(Self.mixed, label: "determinism-1")
        let second = try VirtualRun.run(Self.mixed, label: "determinism-2")
        let unshortened = try VirtualRun.run(Self.mixed, label: "determinism-3", pollShortcut: false)
        for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
            let bytes = try VirtualRun.bytes(first.directory, file)
            #expect(bytes == (try VirtualRun.bytes(second.directory, file)), "\(file) differs between two runs")
            #expect(
                bytes == (try VirtualRun.bytes(unshortened.directory, file)), "\(file) differs without the shortcut")
        }
        let outcomes = first.report.outcomeCounts
        #expect((outcomes[.abandoned] ?? 0) > 0 && (outcomes[.passed] ?? 0) > 0)
        #expect(first.report.behaviour.comebacks > 0 && first.report.behaviour.afterPassRequests > 0)
        // The plain group never gives up and never comes back.
        let rows = try VirtualRun.visitors(first.directory)
        #expect(
            rows.filter { $0.group == "plain" }.allSatisfy { $0.outcome == "passed" && $0.cells["comebacks"] == "0" })
    }
}
