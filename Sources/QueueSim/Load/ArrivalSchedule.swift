import Foundation
import QueueClientCore

/// When visitors intend to arrive: a lazy, sequential, seeded generator of arrival instants
/// built from `arrivals:` (phases one after another on the timeline).
///
/// - `uniform`: evenly spaced in cumulative rate. The k-th arrival of a steady phase (k from 0)
///   sits where the phase's cumulative rate reaches `k + ½`; a constant rate `r` gives
///   `start + (k + ½)/r`, a ramp solves the quadratic. A phase holds `round(∫rate)` visitors
///   (half up), every one inside the phase.
/// - `poisson`: a non-homogeneous Poisson process with the same rate function, by inversion:
///   unit-exponential gaps are summed in cumulative-rate space and mapped back to time. Gaps
///   come from one `SeededRandom(seed, .arrivalJitter)` stream read in arrival order; each
///   phase starts afresh (exact, as the process is memoryless). The count is random around
///   `∫rate`; the iterator's count is the plan.
/// - `burst: N`: N arrivals at the current timeline point. `pause`: the timeline moves on.
/// - `maxVisitors` (or `--visitors N`) caps the total: the first arrivals are kept.
/// - A replayed counts file (`exactCounts`): each steady phase brings exactly its uniform
///   count; `poisson` only places them, at seeded uniform instants within the phase (sorted
///   uniforms drawn one after another, so nothing is stored).
/// - A replayed log (`arrivals.replayLog`): one arrival per line, read as the plan goes; the
///   phases (the log binned) serve only the estimates. `--visitors N` keeps the first N lines.
///
/// The schedule never stores arrivals: iterating a million of them takes a few milliseconds.
package struct ArrivalSchedule: Sequence, Sendable {
    package let process: ArrivalProcess
    /// Most arrivals the iterator yields (`maxVisitors`, or N with `--visitors N`).
    package let cap: Int?
    /// The end of the last phase (bursts take no time).
    package let span: Duration
    /// The factor applied to every rate and burst size (1 unless `--visitors` scaled the plan).
    package let scale: Double
    let segments: [ArrivalSegment]
    let seed: UInt64
    /// Replayed counts: every steady segment brings exactly `uniformCount` arrivals.
    let exactCounts: Bool
    /// A replayed log, streamed instead of the segments.
    let log: ReplayLog?

    /// - Parameter visitors: `--visitors N`: scale every rate and burst size by
    ///   N / (the scenario's planned count, after `maxVisitors`), keeping the shape and span,
    ///   and cap at N (replacing `maxVisitors`). For `uniform` the factor is nudged up just
    ///   enough that per-phase rounding cannot leave the plan short, so it holds exactly N;
    ///   for `poisson` N is the expected count and an upper bound.
    package init(_ arrivals: Arrivals, seed: UInt64, visitors: Int? = nil) throws {
        self.process = arrivals.process
        self.seed = seed
        self.exactCounts = arrivals.exactCounts
        self.log = arrivals.replayLog
        let unscaled = ArrivalSegment.layout(arrivals.phases, scale: 1)
        self.span = unscaled.span

        if let log, visitors.map({ $0 >= 0 }) ?? true {
            // A log is replayed as written: `--visitors` can only keep its first lines.
            self.scale = 1
            self.cap = [visitors, arrivals.maxVisitors, log.lines].compactMap { $0 }.min()
            self.segments = unscaled.segments
            return
        }
        guard let wanted = visitors else {
            self.scale = 1
            self.cap = arrivals.maxVisitors.map { Swift.max(0, $0) }
            self.segments = unscaled.segments
            return
        }
        guard wanted >= 0 else { throw PlanError.invalidVisitorCount(wanted) }
        self.cap = wanted
        if wanted == 0 {
            self.scale = 1
            self.segments = []
            return
        }
        let countsAreWhole = arrivals.process == .uniform || arrivals.exactCounts
        let base: Double =
            countsAreWhole ? Double(Self.uniformTotal(unscaled.segments)) : Self.expectedTotal(unscaled.segments)
        let baseCount = Swift.min(base, arrivals.maxVisitors.map(Double.init) ?? .infinity)
        guard baseCount > 0 else { throw PlanError.nothingToScale(visitors: wanted) }
        let factor = Double(wanted) / baseCount
        self.scale =
            countsAreWhole
            ? Self.smallestUniformScale(arrivals.phases, atLeast: factor, reaching: wanted) : factor
        self.segments = ArrivalSegment.layout(arrivals.phases, scale: scale).segments
    }

    /// `∫rate` over the phases plus the bursts, after the cap: the mean count of a poisson plan,
    /// close to (and for whole per-phase counts equal to) the uniform count.
    package var expectedCount: Double {
        if log != nil || exactCounts { return Double(plannedCount) }
        return Swift.min(Self.expectedTotal(segments), cap.map(Double.init) ?? .infinity)
    }

    /// How many arrivals the iterator yields: computed from the phases for `uniform`, counted
    /// by running the seeded generator for `poisson` (O(n), no storage).
    package var plannedCount: Int {
        if let log { return Swift.min(log.lines, cap ?? .max) }
        if exactCounts { return Swift.min(Self.uniformTotal(segments), cap ?? .max) }
        switch process {
        case .uniform:
            return Swift.min(Self.uniformTotal(segments), cap ?? .max)
        case .poisson:
            var iterator = makeIterator()
            var count = 0
            while iterator.next() != nil { count += 1 }
            return count
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(schedule: self)
    }

    /// Yields arrival instants in non-decreasing order.
    package struct Iterator: IteratorProtocol, Sendable {
        private let segments: [ArrivalSegment]
        private let process: ArrivalProcess
        private let cap: Int
        private var emitted = 0
        private var segmentIndex = 0
        /// Arrivals already yielded in the current segment (uniform steady phases and bursts).
        private var withinSegment = 0
        /// Cumulative rate reached in the current segment (poisson steady phases); for replayed
        /// counts placed at random, the fraction of the segment the last arrival sat at.
        private var cumulative = 0.0
        private var gaps: SeededRandom
        private let exactCounts: Bool
        private let log: ReplayLog?
        private var logCursor: ReplayLogCursor?

        init(schedule: ArrivalSchedule) {
            segments = schedule.segments
            process = schedule.process
            cap = schedule.cap ?? .max
            gaps = SeededRandom(seed: schedule.seed, purpose: .arrivalJitter)
            exactCounts = schedule.exactCounts
            log = schedule.log
            logCursor = schedule.log?.cursor()
        }

        package mutating func next() -> RunInstant? {
            guard emitted < cap else { return nil }
            if let log {
                // Validation read the whole file; a file changed since ends the plan there.
                guard emitted < log.lines, let time = try? logCursor?.next() else { return nil }
                emitted += 1
                return log.instant(ofTime: time)
            }
            while segmentIndex < segments.count {
                if let instant = nextInSegment(segments[segmentIndex]) {
                    emitted += 1
                    return instant
                }
                segmentIndex += 1
                withinSegment = 0
                cumulative = 0
            }
            return nil
        }

        private mutating func nextInSegment(_ segment: ArrivalSegment) -> RunInstant? {
            switch segment {
            case .burst(let start, let count):
                guard withinSegment < count else { return nil }
                withinSegment += 1
                return RunInstant(sinceOrigin: start)
            case .steady(let steady):
                switch process {
                case .uniform:
                    guard withinSegment < steady.uniformCount else { return nil }
                    defer { withinSegment += 1 }
                    return steady.instant(atCumulative: Double(withinSegment) + 0.5)
                case .poisson where exactCounts:
                    return nextPlacedAtRandom(steady)
                case .poisson:
                    // 1 - u lies in (0, 1], so the logarithm is finite.
                    cumulative += -Foundation.log(1 - gaps.nextUnit())
                    guard cumulative <= steady.integral else { return nil }
                    return steady.instant(atCumulative: cumulative)
                }
            }
        }

        /// The next of `uniformCount` sorted uniform instants in the segment: with `k` arrivals
        /// left after fraction `p`, the next sits at `p + (1 - p)(1 - V^(1/k))` (the smallest of
        /// k uniforms on what is left), which draws the order statistics without storing them.
        private mutating func nextPlacedAtRandom(_ steady: SteadyRate) -> RunInstant? {
            let count = steady.uniformCount
            guard withinSegment < count else { return nil }
            let left = Double(count - withinSegment)
            withinSegment += 1
            cumulative += (1 - cumulative) * (1 - Foundation.pow(1 - gaps.nextUnit(), 1 / left))
            return steady.instant(atCumulative: cumulative * steady.integral)
        }
    }
}

extension ArrivalSchedule {
    static func uniformTotal(_ segments: [ArrivalSegment]) -> Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .steady(let steady): total + steady.uniformCount
            case .burst(_, let count): total + count
            }
        }
    }

    static func expectedTotal(_ segments: [ArrivalSegment]) -> Double {
        segments.reduce(0) { total, segment in
            switch segment {
            case .steady(let steady): total + steady.integral
            case .burst(_, let count): total + Double(count)
            }
        }
    }

    /// The smallest scale ≥ `factor` whose uniform plan holds at least `wanted` arrivals.
    /// Rounding each phase half up can lose up to half a visitor per phase; this takes those
    /// back without bending the shape (the factor moves by a fraction of a percent).
    static func smallestUniformScale(_ phases: [ArrivalPhase], atLeast factor: Double, reaching wanted: Int)
        -> Double
    {
        func count(_ scale: Double) -> Int { uniformTotal(ArrivalSegment.layout(phases, scale: scale).segments) }
        if count(factor) >= wanted { return factor }
        var low = factor
        var high = factor * 2
        // The count grows without bound with the scale (the base count is positive), so a few
        // doublings always suffice; the bound only guards against a pathological scenario.
        var doublings = 0
        while count(high) < wanted, doublings < 64 {
            low = high
            high *= 2
            doublings += 1
        }
        for _ in 0..<64 {
            let middle = (low + high) / 2
            guard middle > low, middle < high else { break }
            if count(middle) >= wanted { high = middle } else { low = middle }
        }
        return high
    }
}

extension ArrivalSchedule {
    /// A floor under the most visitors in flight at once, from the phases alone (no walk): the
    /// largest burst, or half of what the fastest steady rate brings in one `window` (half, so
    /// Poisson's randomness and a ramp's slope cannot push the true peak below it). Lets a plan
    /// that cannot fit be refused before the O(visitors) preflight walk.
    func inFlightFloor(window: Duration) -> Int {
        var floor = 0.0
        for segment in segments {
            switch segment {
            case .burst(_, let count):
                floor = Swift.max(floor, Double(count))
            case .steady(let steady):
                let peakRate = Swift.max(steady.rate, steady.rate + steady.slope * steady.duration.secondsDouble)
                let span = Swift.min(window, steady.duration).secondsDouble
                floor = Swift.max(floor, peakRate * span / 2)
            }
        }
        return Int(Swift.min(floor, Double(cap ?? Int.max), 1e15))
    }
}
