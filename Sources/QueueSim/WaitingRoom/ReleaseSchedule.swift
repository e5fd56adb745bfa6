/// When each queue slot is released, computed lazily from the outflow — no timers.
///
/// The schedule works in *releasing time*: the nanoseconds since event start during which the
/// room was in a releasing mode (`queue`, `safetynet`). Slot k is released once releasing time
/// reaches `r_k = max(R(ready_k), r_{k-1} + gap)`, with `gap = ⌈1e9 / μ⌉` ns. This is a smooth
/// outflow (one release every 1/μ s, not a batch per minute): any 60 s window holds at most
/// ⌈60·μ⌉ releases, because releasing time advances no faster than real time and slots are
/// `gap` apart. Integer arithmetic keeps that bound exact.
struct ReleaseSchedule: Sendable {
    private struct Span {
        var start: Int64
        var releasing: Bool
        /// Releasing time accumulated before `start`.
        var releasedBefore: Int64
    }

    let eventStart: Int64
    /// The room's outflow: it answers the rate in force at an instant; this schedule keeps
    /// only the releasing-time bookkeeping and the gap between releases.
    let outflow: OutflowSchedule
    /// The gap at the first rate (for a plain outflow, the only one).
    let gap: Int64
    /// The gap of each of `outflow`'s steps: `⌈1e9 / μ⌉` ns.
    private let gaps: [Int64]
    private let spans: [Span]

    /// Each release comes `⌈1e9 / μ⌉` ns of releasing time after the one before, μ the rate
    /// `outflow` has in force at that earlier release: a raise takes effect from the first
    /// release at or after its `at`, and the rate in force for a release is never in doubt.
    init(timeline: ModeTimeline, eventStart: Int64, outflow: OutflowSchedule) {
        self.eventStart = eventStart
        self.outflow = outflow
        gaps = outflow.steps.map { Self.gap($0.perSecond) }
        gap = gaps[0]
        var spans: [Span] = [Span(start: 0, releasing: false, releasedBefore: 0)]
        for (index, segment) in timeline.segments.enumerated() {
            let end = index + 1 < timeline.segments.count ? timeline.segments[index + 1].startNanoseconds : .max
            let start = max(segment.startNanoseconds, eventStart)
            guard start < end else { continue }
            let previous = spans[spans.count - 1]
            let accumulated =
                previous.releasedBefore + (previous.releasing ? start - previous.start : 0)
            spans.append(
                Span(start: start, releasing: segment.mode.releasesQueue, releasedBefore: accumulated))
        }
        self.spans = spans
    }

    private static func gap(_ outflowPerSecond: Double) -> Int64 {
        outflowPerSecond > 0 ? Int64((1e9 / outflowPerSecond).rounded(.up)) : .max
    }

    /// The releasing time of the slot after one released at releasing time `previous`.
    func releasingTime(after previous: Int64) -> Int64 {
        previous &+ gap(afterReleasingTime: previous)
    }

    /// The gap after a release at releasing time `previous`, by the rate in force at the run
    /// instant it is reached (the last rate when the room stops releasing for good before).
    func gap(afterReleasingTime previous: Int64) -> Int64 {
        guard !outflow.isPlain else { return gap }
        let instant = instantReaching(releasingTime: previous) ?? .max
        return gaps[outflow.stepIndex(atNanoseconds: instant)]
    }

    /// Releasing time accumulated by `time`.
    func releasingTime(atNanoseconds time: Int64) -> Int64 {
        let span = spans[spanIndex(atNanoseconds: time)]
        return span.releasedBefore + (span.releasing ? time - span.start : 0)
    }

    /// The first moment, in a releasing mode, at which releasing time has reached `target`;
    /// nil when the scripted timeline never gets there (the room stops releasing for good).
    func instantReaching(releasingTime target: Int64) -> Int64? {
        for (index, span) in spans.enumerated() where span.releasing {
            let end = index + 1 < spans.count ? spans[index + 1].releasedBefore : .max
            if target <= end { return span.start + max(0, target - span.releasedBefore) }
        }
        return nil
    }

    private func spanIndex(atNanoseconds time: Int64) -> Int {
        var low = 0
        var high = spans.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if spans[middle].start <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
