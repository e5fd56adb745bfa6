import Foundation

/// The fluid model's own answer to the sweep's question, beside the simulated bracket: the
/// value of the key at which the fluid wait percentile meets the goal exactly. For a burst of
/// N and `wait.p95 < 10m` that is the outflow 0.95·N / 10 min; for any other plan it is found
/// by bisection on `FluidQueue.waitPercentile`, which falls as the outflow rises (and rises
/// with the crowd).
///
/// It answers for the goals on the wait's percentiles of all visitors (`wait.p95 < 10m`,
/// `wait.p50 <= 5m`): the most demanding of them. Other goals (shares, groups, other timings)
/// are not in the model. It answers for `waitingRoom.outflow` and `arrivals.scale`, where the
/// model applies (`FluidQueue(scenario:)`: a plain queue, nobody giving up).
package enum SweepFluidAnswer {
    package struct Answer: Sendable, Equatable {
        /// The key's value, in its base unit.
        package var size: Double
        /// The goal it answers (`wait.p95 < 10m`).
        package var goal: String
    }

    package static let keys = ["waitingRoom.outflow", "arrivals.scale"]

    /// `scenario` is the deciding point's; `keyValue` its value of the key (base unit).
    package static func find(
        key: String, goals: [Threshold], scenario: Scenario, keyValue: Double
    ) -> Answer? {
        guard keys.contains(key), let room = scenario.waitingRoom, FluidQueue(scenario: scenario) != nil,
            keyValue > 0
        else { return nil }
        let waitGoals = goals.compactMap { goal -> (fraction: Double, limit: Double, source: String)? in
            guard goal.group == nil, goal.comparator == .lessThan || goal.comparator == .lessOrEqual,
                case .timing(.wait, .percentile(let percentile)) = goal.metric
            else { return nil }
            return (percentile / 100, goal.limit / 1000, goal.source)
        }
        guard !waitGoals.isEmpty else { return nil }
        // The model at a value of the key: the outflow from the event start, or the crowd scaled
        // from the deciding point's own (its arrivals are already scaled by `keyValue`).
        func model(_ size: Double) -> FluidQueue {
            key == "arrivals.scale"
                ? FluidQueue(
                    arrivals: scenario.arrivals, scale: size / keyValue, eventStart: room.eventStart,
                    outflow: room.outflow)
                : FluidQueue(
                    arrivals: scenario.arrivals, eventStart: room.eventStart, outflow: room.outflow.startingAt(size))
        }
        // A larger outflow shortens waits; a larger crowd lengthens them.
        let rising = key == "waitingRoom.outflow"
        // A wait that reaches client.maxWait is a lower bound, which never meets `<` or `<=`
        // (the simulated figure fails capped there), so the model's wait must stay below it too.
        let cap =
            Double(scenario.client.maxWait.components.seconds)
            + Double(scenario.client.maxWait.components.attoseconds) / 1e18
        let answers = waitGoals.compactMap { goal -> Answer? in
            func meets(_ size: Double) -> Bool {
                guard let wait = model(size).waitPercentile(goal.fraction) else { return false }
                return wait <= goal.limit && wait < cap
            }
            return threshold(from: keyValue, passesAbove: rising, meets: meets).map {
                Answer(size: $0, goal: goal.source)
            }
        }
        guard answers.count == waitGoals.count else { return nil }
        // Every wait goal must hold: the largest outflow, or the smallest crowd, of theirs.
        return rising ? answers.max { $0.size < $1.size } : answers.min { $0.size < $1.size }
    }

    /// The size where `meets` turns: passing above it when `passesAbove`, below it otherwise.
    /// The search brackets it by doubling from `start` (at most 40 times each way), then
    /// halves the bracket to a millionth of its size.
    static func threshold(from start: Double, passesAbove: Bool, meets: (Double) -> Bool) -> Double? {
        var low = start
        var high = start
        var doublings = 0
        // low: a size on the failing side; high: one on the passing side (as if passesAbove).
        func passing(_ size: Double) -> Bool { meets(size) }
        if passesAbove {
            while passing(low), doublings < 40 {
                low /= 2
                doublings += 1
            }
            while !passing(high), doublings < 80 {
                high *= 2
                doublings += 1
            }
            guard !passing(low), passing(high) else { return nil }
        } else {
            while !passing(low), doublings < 40 {
                low /= 2
                doublings += 1
            }
            while passing(high), doublings < 80 {
                high *= 2
                doublings += 1
            }
            guard passing(low), !passing(high) else { return nil }
        }
        for _ in 0..<60 where (high - low) > high * 1e-6 {
            let middle = (low + high) / 2
            if passing(middle) == passesAbove { high = middle } else { low = middle }
        }
        return passesAbove ? high : low
    }
}
