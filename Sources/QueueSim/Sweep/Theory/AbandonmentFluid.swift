import Foundation

/// The fluid model of a waiting room whose visitors may give up, for either turn rule, any
/// arrival plan (bursts, ramps, a pre-queue), a scheduled outflow, any patience law and
/// comebacks: the oracle `sweep --check-theory` holds every point to.
///
/// The crowd is cut into thin blocks in queue order: one per slice of arrivals after the event
/// start (first come first served), and one block for the pre-queue, whose members are served
/// in a random order (the room shuffles it at the event start). Time advances in fixed steps;
/// in each step the room's releases (`OutflowSchedule.released`) move through
/// the blocks from the head:
///
/// - `wasted` turns: every ticket costs a turn whether its visitor is still there or not, so a
///   visitor arriving at t gets its turn at t + W(t), W the no-abandonment wait, and passes with
///   probability F̄(W(t)) (reference/waiting-room-models.md §5.7: exact in the fluid limit).
/// - `skipped` turns: a turn costs the outflow only if its visitor is there, or left less than
///   `detectionDelay` before (the room takes a visitor for gone after 60 s of silence, and it
///   polled up to 30 s before leaving: 45 s on average). This is the discretised
///   boundary-waiting-time equation of Liu & Whitt (2012), `SkippedTurnsODE` in rate form.
/// - comebacks: a share p of those who give up (attempts left) re-enqueue after a drawn delay
///   (its law at 16 quantile points) at the back of the queue, with a fresh patience: an orbit
///   that feeds the arrivals.
/// - no-shows (`noShow`): a share of every first attempt leaves as soon as it has its queue
///   number (a patience of 0) and never comes back; its ticket costs a turn by the same rule
///   (always under `wasted`; under `skipped` only when reached within the room's whole 60 s
///   of silence, which starts at its enqueue, its last word to the room).
/// - `client.maxWait` ends a stay as an outcome of its own (`queued`), not a give-up.
package struct AbandonmentFluid: Sendable {
    package var fluid: FluidQueue
    package var patience: DurationDistribution?
    package var comeback: ComebackBehaviour?
    /// The share of first attempts that are no-shows (0...1).
    package var noShow = 0.0
    package var turns: AbandonedTurns
    package var maxWait: Double
    package var detectionDelay: Double
    /// The same for a no-show, whose silence starts as it lands: the room's whole 60 s under
    /// `skipped` turns.
    package var noShowDetectionDelay: Double
    /// Seconds per step; a visitor learns of its turn within one step.
    package var step = 1.0
    /// Slices of the arrival curve (each its own block after the event start).
    package var slices = 2_000
    /// The pre-queue's arrival times are pooled into this many components.
    package var preQueueComponents = 48
    /// A run longer than this many steps is not modelled (nil).
    package var maxSteps = 400_000
    /// Whether `solve` follows the queue's length for its peak (`FluidTrajectory.peakQueue`):
    /// a pass over the waiting blocks each step, left out where only the shares are wanted.
    package var tracksQueue = false

    /// The seconds a left visitor still costs a turn under `skipped` turns: the room's 60 s of
    /// silence less half the longest `Retry-After` (30 s) it polled at.
    package static let skippedDetectionDelay =
        WaitingRoomModel.silenceBeforeGone.secondsDouble - 15

    package init(
        fluid: FluidQueue, patience: DurationDistribution?, comeback: ComebackBehaviour?, turns: AbandonedTurns,
        maxWait: Double, detectionDelay: Double? = nil
    ) {
        self.fluid = fluid
        self.patience = patience
        self.comeback = comeback
        self.turns = turns
        self.maxWait = maxWait
        self.detectionDelay = detectionDelay ?? (turns == .skipped ? Self.skippedDetectionDelay : 0)
        noShowDetectionDelay = turns == .skipped ? WaitingRoomModel.silenceBeforeGone.secondsDouble : 0
    }

    /// Seconds from the first arrival (or the event start, if sooner) until every visitor's
    /// fate is decided at the latest: the last arrival, then a stay (maxWait, or nearly all
    /// patience when sooner) per attempt and the comeback delays between them. What `validate`
    /// divides into steps.
    package var horizon: Double {
        let visitors = fluid.visitors
        guard visitors > 0 else { return 0 }
        let first = min(fluid.arrivalTime(ofVisitor: 0), fluid.eventStart)
        let last = max(fluid.arrivalTime(ofVisitor: visitors), fluid.eventStart)
        let stay = min(maxWait, patience?.quantile(0.999) ?? maxWait)
        let attempts = Double(1 + (mayComeBack(0) ? comeback?.max ?? 0 : 0))
        let delays = (attempts - 1) * (comeback?.after.quantile(0.99) ?? 0)
        return last - first + stay * attempts + delays
    }

    /// P(a visitor has not given up `age` seconds after landing on the queue page): its
    /// patience's survival, or for a no-show 1 before it lands and 0 from then on.
    func survival(_ age: Double, noShow: Bool = false) -> Double {
        guard !noShow else { return age < 0 ? 1 : 0 }
        return patience?.survival(age) ?? 1
    }

    /// P(still on the queue page `age` seconds after landing on it).
    func present(_ age: Double, noShow: Bool = false) -> Double {
        guard age < maxWait else { return 0 }
        return survival(age, noShow: noShow)
    }

    /// P(a ticket `age` seconds old costs a turn when reached).
    func costsATurn(_ age: Double, noShow: Bool = false) -> Double {
        turns == .wasted ? 1 : present(age - (noShow ? noShowDetectionDelay : detectionDelay), noShow: noShow)
    }

    /// Whether an attempt of generation `generation` (0: the first) may come back; a no-show
    /// never does.
    func mayComeBack(_ generation: Int, noShow: Bool = false) -> Bool {
        guard !noShow, let comeback, comeback.share > 0, patience != nil else { return false }
        return generation < comeback.max
    }
}

/// One arrival time's visitors inside a block.
package struct FluidComponent: Sendable {
    package var mass: Double
    package var arrival: Double
    /// 0 for a first attempt, k for the k-th comeback.
    package var generation: Int
    /// A first attempt's no-shows: they leave at once and never come back.
    package var noShow = false
}

/// Visitors served in a random order among themselves (one arrival slice, or the pre-queue);
/// `pieces` say when each share of its tickets was reached (infinity: never).
package struct FluidBlock: Sendable {
    package var components: [FluidComponent]
    package var reached = 0.0
    package var pieces: [(share: Double, at: Double)] = []

    var mass: Double { components.reduce(0) { $0 + $1.mass } }
}

extension AbandonmentFluid {
    /// Runs the model to the end (everyone passed, left or timed out); nil when the room never
    /// drains within `maxSteps`.
    package func solve() -> FluidTrajectory? {
        var state = FluidState(model: self)
        guard state.visitors > 0 else { return nil }
        var time = min(state.arrivals.first ?? fluid.eventStart, fluid.eventStart)
        var peak = (queue: 0.0, at: time)
        for _ in 0..<maxSteps {
            state.admit(until: time + step, now: time)
            if tracksQueue {
                let queue = state.waiting(at: time)
                if queue > peak.queue { peak = (queue, time) }
            }
            if time + step > fluid.eventStart {
                state.serve(from: max(time, fluid.eventStart), to: time + step)
            }
            state.sendComebacks(from: time, to: time + step)
            time += step
            if state.isOver(at: time) {
                return FluidTrajectory(model: self, blocks: state.closed(), visitors: state.visitors, peak: peak)
            }
        }
        return nil
    }
}
