import QueueClientCore

@testable import QueueSim

/// What must hold of a `VisitorEngine` after every event, whatever the events' order: told every
/// action the engine returned and every request an adapter handed to the network, it keeps
/// the violations it saw, in words, for the test to show.
struct EngineInvariants {
    /// `run.maxRequestRate`'s gap between two requests; nil without a cap.
    let pacingInterval: Duration?
    /// Finished visitors' rows, by plan index.
    private(set) var rows: [Int: FinishedVisitor] = [:]
    /// The visitors the engine started (`startNextArrival`), by plan index.
    private(set) var started: Set<Int> = []
    /// Requests handed to the network (sent at once, or at their turn).
    private(set) var transmitted = 0
    /// The turn the engine gave the last request under the cap (when it asked, or later).
    private var lastTurn: RunInstant?
    private(set) var violations: [String] = []

    init(pacingInterval: Duration?) {
        self.pacingInterval = pacingInterval
    }

    mutating func record(_ violation: String) {
        violations.append(violation)
    }

    /// The engine started visitor `index`.
    mutating func started(_ index: Int) {
        if !started.insert(index).inserted { record("visitor \(index) started twice") }
        if rows[index] != nil { record("visitor \(index) started after its row") }
    }

    /// An action the engine returned at `now`; `slotOwner`: the plan index of the visitor in the
    /// order's slot, as the engine holds it.
    mutating func observe(_ action: VisitorEngine.Action, at now: RunInstant, slotOwner: (Int) -> Int?) {
        switch action {
        case .none:
            return
        case .finished(let finished):
            if rows[finished.index] != nil { record("visitor \(finished.index) got a second row at \(now)") }
            rows[finished.index] = finished
        case .send(let order):
            check(order, at: now, slotOwner: slotOwner)
            transmitted += 1
            if pacingInterval != nil { turnGiven(at: now) }
        case .sendLater(let paced):
            check(paced.order, at: now, slotOwner: slotOwner)
            if pacingInterval == nil { record("a request was paced without a cap") }
            if paced.leaves <= now { record("a paced request's turn \(paced.leaves) is not after \(now)") }
            if paced.askedAt != now { record("a paced request was asked at \(paced.askedAt), not \(now)") }
            turnGiven(at: paced.leaves)
        }
    }

    /// A paced request the engine let go when the adapter brought its turn, at `now`.
    mutating func wentAtTurn(_ paced: VisitorEngine.PacedRequest, at now: RunInstant) {
        transmitted += 1
        if now < paced.leaves { record("a paced request went at \(now), before its turn \(paced.leaves)") }
    }

    /// Turns under the cap come one interval apart at least, in the order they were given.
    private mutating func turnGiven(at turn: RunInstant) {
        if let interval = pacingInterval, let last = lastTurn, turn - last < interval {
            record("a request's turn is \(turn), \(turn - last) after the previous one (cap: one per \(interval))")
        }
        lastTurn = turn
    }

    /// A request: from a visitor without a row (or a passed one's after-pass call), naming the
    /// visitor in its slot.
    private mutating func check(_ order: VisitorEngine.RequestOrder, at now: RunInstant, slotOwner: (Int) -> Int?) {
        let index = order.visitor.index
        if let row = rows[index] {
            if !order.afterPass || row.result.outcome != .passed {
                record("visitor \(index) (\(row.result.outcome)) sent a request after its row, at \(now)")
            }
        } else if order.afterPass {
            record("visitor \(index) made an after-pass call without having passed")
        }
        if slotOwner(order.slot) != index {
            record(
                "an order names visitor \(index), its slot \(order.slot) holds \(String(describing: slotOwner(order.slot)))"
            )
        }
    }

    /// The counts that must add up between events. `staysAfterItsRow`: visitors may stay in
    /// flight after their row (after-pass calls), so in flight is at least the rest.
    mutating func checkCounts(of engine: VisitorEngine, extraCounted: Int, staysAfterItsRow: Bool) {
        let progress = engine.progress(at: .origin)
        let startedWithRow = rows.keys.filter { started.contains($0) }.count
        let expectedInFlight = started.count - startedWithRow
        if staysAfterItsRow ? engine.inFlight < expectedInFlight : engine.inFlight != expectedInFlight {
            record(
                "started \(started.count) = finished \(startedWithRow) + in flight \(engine.inFlight) does not hold")
        }
        if progress.started != started.count {
            record("progress says \(progress.started) started, not \(started.count)")
        }
        if progress.finished != rows.count { record("progress says \(progress.finished) finished, not \(rows.count)") }
        if progress.requests != transmitted + extraCounted {
            record("\(progress.requests) requests counted, \(transmitted + extraCounted) handed over")
        }
    }

    /// At the end: every visitor that arrived has exactly one row, and nobody is in flight.
    mutating func checkEnd(of engine: VisitorEngine, plannedVisitors: Int, ranToTheEnd: Bool) {
        let progress = engine.progress(at: .origin)
        if engine.inFlight != 0 { record("\(engine.inFlight) visitors still in flight at the end") }
        if rows.count != progress.arrived { record("\(rows.count) rows for \(progress.arrived) arrived visitors") }
        if let missing = started.first(where: { rows[$0] == nil }) {
            record("visitor \(missing) started but has no row")
        }
        if ranToTheEnd, rows.count != plannedVisitors {
            record("\(rows.count) rows for \(plannedVisitors) planned visitors after the last one finished")
        }
    }
}
