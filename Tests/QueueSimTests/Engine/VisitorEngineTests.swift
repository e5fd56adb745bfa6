import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// The engine both clocks drive, with no clock and no network: the test is the adapter. It
/// feeds events at chosen instants and reads the actions, as `LoopDriver` and `VirtualDriver` do.
@Suite("VisitorEngine: one engine, events in, actions out")
struct VisitorEngineTests {
    static let threeAtOnce = """
        version: 1
        name: engine
        target:
          customerId: acme
          waitingRoomId: launch
        client:
          requestTimeout: 5s
        arrivals:
          phases:
            - { burst: 3 }
            - { pause: 10s }
            - { burst: 1 }

        """

    static func engine(quota: Int = .max, tracksRequestDeadlines: Bool = true) throws -> VisitorEngine {
        let run = try RunFixture.prepare(Self.threeAtOnce, folder: try RunFixture.makeFolder())
        return try VisitorEngine(
            plan: run.makePlan(), templates: run.groupTemplates, quota: quota,
            tracksRequestDeadlines: tracksRequestDeadlines)
    }

    /// An enqueue answer that ends the visitor at once: a 4xx is the SDK's `onError`.
    static let unknownRoom = #"{"error":"Unknown waiting room"}"#

    static func order(_ action: VisitorEngine.Action) -> VisitorEngine.RequestOrder? {
        if case .send(let order) = action { return order }
        return nil
    }

    static func finished(_ action: VisitorEngine.Action) -> FinishedVisitor? {
        if case .finished(let visitor) = action { return visitor }
        return nil
    }

    static func answer(_ status: HTTPResponse.Status, _ json: String) -> IncomingResponse {
        var head = HTTPResponse(status: status)
        head.headerFields[.contentType] = "application/json"
        return IncomingResponse(head: head, body: Array(json.utf8))
    }

    @Test("an arrival starts with its enqueue request, under the quota; the next waits for a place")
    func quotaHoldsArrivalsBack() throws {
        var engine = try Self.engine(quota: 2)
        #expect(engine.nextArrival?.index == 0)
        let first = try #require(Self.order(try engine.startNextArrival(at: .origin)))
        #expect(first.request.head.method == .post)
        #expect(first.request.head.path?.contains("/enqueue") == true)
        #expect(first.timeout == RequestTimeout(limit: .seconds(5), kind: .wholeExchange))
        _ = try engine.startNextArrival(at: .origin)
        #expect(engine.inFlight == 2)
        #expect(!engine.hasPlace)
        #expect(engine.nextArrival?.index == 2)
        #expect(engine.progress(at: .origin).requests == 2)
    }

    @Test("a request's deadline fires once, after its timeout, unless its answer came first")
    func deadlinesFireForUnansweredRequestsOnly() throws {
        var engine = try Self.engine()
        let first = try #require(Self.order(try engine.startNextArrival(at: .origin)))
        let second = try #require(Self.order(try engine.startNextArrival(at: .origin)))
        #expect(engine.nextEventTime() == .origin + .seconds(5))
        #expect(engine.takeEvent(dueBy: .origin + .seconds(4)) == nil)

        // The first visitor's answer ends it (a 4xx): it finishes with a row; its deadline is gone.
        let done = engine.received(
            Self.answer(.badRequest, Self.unknownRoom),
            slot: first.slot, serial: first.serial, at: .origin + .seconds(1))
        let row = try #require(Self.finished(done))
        #expect(row.index == 0)
        #expect(row.result.outcome == .error)
        #expect(engine.inFlight == 1)

        // A stale answer to a request no longer awaited changes nothing.
        #expect(!engine.awaits(slot: first.slot, serial: first.serial))
        let stale = engine.received(
            Self.answer(.ok, "{}"), slot: first.slot, serial: first.serial, at: .origin + .seconds(2))
        guard case .none = stale else {
            Issue.record("a stale answer was carried out: \(stale)")
            return
        }

        // The second visitor's deadline is the only one left.
        guard case .deadline(let slot, let serial) = engine.takeEvent(dueBy: .origin + .seconds(5)) else {
            Issue.record("no deadline due at 5 s")
            return
        }
        #expect(slot == second.slot && serial == second.serial)
        #expect(engine.takeEvent(dueBy: .origin + .seconds(5)) == nil)
        // The adapter turns it into a timeout: the SDK's retry is a wake-up on the calendar.
        let retry = engine.failed(.timedOut, slot: slot, serial: serial, at: .origin + .seconds(5))
        guard case .none = retry else {
            Issue.record("a timed-out enqueue was not retried later: \(retry)")
            return
        }
        #expect(engine.calendar.nextTime.map { $0 > .origin + .seconds(5) } == true)
    }

    @Test("stopping ends every visitor in flight in slot order, then the arrivals that never started")
    func stopGivesEveryVisitorARow() throws {
        var engine = try Self.engine(quota: 2)
        _ = try engine.startNextArrival(at: .origin)
        _ = try engine.startNextArrival(at: .origin)
        var rows: [FinishedVisitor] = []
        try engine.stop(at: .origin + .seconds(1), reason: .interrupted, dueArrivals: true) { rows.append($0) }
        // Visitors 0 and 1 were in flight; 2 had arrived (at 0 s) but the quota held it back;
        // 3 arrives at 10 s, after the stop, and never arrives at all.
        #expect(rows.map(\.index) == [0, 1, 2])
        #expect(rows.allSatisfy { $0.result.outcome == .interrupted })
        #expect(engine.inFlight == 0)
        #expect(engine.nextArrival?.index == 3)
        let progress = engine.progress(at: .origin + .seconds(1))
        #expect(progress.arrived == 3)
        #expect(progress.started == 2)
        #expect(progress.finished == 3)
        #expect(progress.outcomes[.interrupted] == 3)
    }

    @Test("without deadline tracking (the virtual network), answers need no serial and nothing times out here")
    func virtualEngineTracksNoDeadlines() throws {
        var engine = try Self.engine(tracksRequestDeadlines: false)
        let first = try #require(Self.order(try engine.startNextArrival(at: .origin)))
        #expect(first.serial == 0)
        #expect(engine.nextEventTime() == nil)
        #expect(engine.takeEvent(dueBy: .origin + .seconds(60)) == nil)
        let done = engine.received(
            Self.answer(.badRequest, Self.unknownRoom),
            slot: first.slot, serial: 0, at: .origin + .milliseconds(20))
        #expect(Self.finished(done)?.result.outcome == .error)
    }
}
