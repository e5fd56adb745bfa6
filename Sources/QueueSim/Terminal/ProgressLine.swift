import QueueClientCore

/// The words of the live progress line, fitted to a terminal's width.
///
/// A line wider than the terminal wraps, and `\r` then only returns to the start of its last
/// row: every refresh leaves the rows above behind (a trail). So the line is cut to fit before
/// it is written: the least important parts shorten first, then go, and only the clock and the
/// visitor counts are never dropped.
package struct ProgressLine: Sendable {
    package enum Clock: Sendable {
        /// The wall clock: time since the start, and requests per wall second measured over at
        /// least a second (nil until a second has passed).
        case wall(elapsed: Duration, requestsPerSecond: Double?)
        /// The virtual clock: simulated time, the planned span of arrivals, and the wall time
        /// the run has taken so far. Simulated requests per wall second mean nothing to a
        /// reader (`req/s 15225082`), so the line shows how far through the plan the run is.
        case virtual(simulated: Duration, span: Duration, wall: Duration)
    }

    /// One piece of the line: its forms from the longest to the shortest, and how readily it
    /// goes (a higher rank goes first; rank 0 never goes).
    struct Part {
        var forms: [String]
        var rank: Int
    }

    var parts: [Part]

    package init(_ snapshot: RunProgress.Snapshot, clock: Clock) {
        var parts: [Part] = []
        switch clock {
        case .wall(let elapsed, let perSecond):
            parts.append(Part(forms: [Self.clockText(elapsed)], rank: 0))
            parts.append(
                Part(
                    forms: [
                        "arrived \(snapshot.arrived)/\(snapshot.planned)", "\(snapshot.arrived)/\(snapshot.planned)",
                    ], rank: 0))
            parts.append(Part(forms: ["in queue \(snapshot.inQueue)", "queue \(snapshot.inQueue)"], rank: 3))
            parts.append(Part(forms: ["passed \(snapshot.passed)", "pass \(snapshot.passed)"], rank: 1))
            parts.append(Part(forms: ["errors \(snapshot.errors)", "err \(snapshot.errors)"], rank: 1))
            if let perSecond {
                parts.append(Part(forms: ["req/s \(Int(perSecond.rounded()))"], rank: 4))
            }
        case .virtual(let simulated, let span, let wall):
            let speedUp = wall > .zero ? Int(simulated.secondsDouble / wall.secondsDouble) : 0
            let planned =
                simulated <= span
                ? "sim \(Self.clockText(simulated))/\(Self.clockText(span))"
                : "sim \(Self.clockText(simulated)) (arrivals ended \(Self.clockText(span)))"
            let short = "sim \(Self.clockText(simulated))"
            parts.append(
                Part(forms: speedUp > 0 ? ["\(planned) \(speedUp)x", planned, short] : [planned, short], rank: 0))
            parts.append(
                Part(
                    forms: [
                        "done \(snapshot.finished)/\(snapshot.planned)", "\(snapshot.finished)/\(snapshot.planned)",
                    ], rank: 0))
            if let left = Self.wallTimeLeft(snapshot, simulated: simulated, span: span, wall: wall) {
                parts.append(Part(forms: ["left ~\(Self.clockText(left))", "~\(Self.clockText(left))"], rank: 1))
            }
            parts.append(Part(forms: ["in queue \(snapshot.inQueue)", "queue \(snapshot.inQueue)"], rank: 3))
            parts.append(Part(forms: ["passed \(snapshot.passed)", "pass \(snapshot.passed)"], rank: 2))
            parts.append(Part(forms: ["errors \(snapshot.errors)", "err \(snapshot.errors)"], rank: 2))
        }
        if let p95 = snapshot.enqueueP95Milliseconds {
            parts.append(Part(forms: ["enqueue p95 \(p95)ms", "p95 \(p95)ms"], rank: 5))
        }
        if snapshot.generatorSaturated {
            // Says the timings are not the server's alone: it outlives every number but the clock.
            let lag = snapshot.loopLag.wholeMilliseconds
            parts.append(
                Part(
                    forms: [
                        "GENERATOR SATURATED (loop lag \(lag)ms: timings include its delay)",
                        "GENERATOR SATURATED (lag \(lag)ms)", "SATURATED",
                    ], rank: 1))
        }
        self.parts = parts
    }

    /// The line in at most `width - 1` columns: a line that fills the last column makes some
    /// terminals wrap at once, which is the trail this type exists to prevent.
    package func text(width: Int) -> String {
        let limit = max(width - 1, 1)
        var chosen = parts.map { (part: $0, form: 0) }
        var separator = "  "
        func joined() -> String { chosen.map { $0.part.forms[$0.form] }.joined(separator: separator) }
        while joined().count > limit {
            // The part that goes most readily, the later of equals: shorten it, or drop it.
            guard
                let index = chosen.indices.filter({
                    chosen[$0].part.rank > 0 || chosen[$0].form + 1 < chosen[$0].part.forms.count
                })
                .max(by: { (chosen[$0].part.rank, $0) < (chosen[$1].part.rank, $1) })
            else {
                if separator.count > 1 {
                    separator = " "
                    continue
                }
                let text = joined()
                return String(text.prefix(limit - 1)) + "…"
            }
            if chosen[index].form + 1 < chosen[index].part.forms.count {
                chosen[index].form += 1
            } else {
                chosen.remove(at: index)
            }
        }
        return joined()
    }

    /// Wall time left, estimated: through the arrival span, from how fast simulated time runs;
    /// after it, from how fast visitors finish (the waiting ones leave at the outflow's pace).
    static func wallTimeLeft(
        _ snapshot: RunProgress.Snapshot, simulated: Duration, span: Duration, wall: Duration
    ) -> Duration? {
        guard wall > .zero, snapshot.planned > 0 else { return nil }
        if snapshot.finished >= snapshot.planned { return .zero }
        if simulated > .zero, span > simulated {
            return wall * ((span - simulated).secondsDouble / simulated.secondsDouble)
        }
        guard snapshot.finished > 0 else { return nil }
        return wall * (Double(snapshot.planned - snapshot.finished) / Double(snapshot.finished))
    }

    /// `mm:ss`, or `h:mm:ss` from an hour on.
    package static func clockText(_ duration: Duration) -> String {
        let total = max(Int(duration.components.seconds), 0)
        let (hours, minutes, seconds) = (total / 3600, (total % 3600) / 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds))" : "\(two(minutes)):\(two(seconds))"
    }
}
