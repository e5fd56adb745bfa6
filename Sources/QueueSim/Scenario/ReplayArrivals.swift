import QueueClientCore

// The scenario model (Scenario.swift): `arrivals: { replay: FILE, … }`, a crowd taken from a
// file instead of typed phases (docs/scenarios.md, "Replaying a crowd").
//
// A file of counts per interval becomes ordinary phases, one per row, so every reader of the
// phases (the plan, the fluid estimate, validate's summary, sweeps) works on it unchanged; only
// the placement within a row differs (`ArrivalSchedule`'s exact counts). A log of timestamps is
// streamed by the plan (ReplayLog.swift); its phases are the log binned, for the estimates.

/// How long one row of a counts file lasts.
package enum ReplayInterval: String, Sendable, Equatable, CaseIterable {
    case minute, second

    package var seconds: Int { self == .minute ? 60 : 1 }
}

/// How a log's lines write their time.
package enum ReplayTimestamps: String, Sendable, Equatable, CaseIterable {
    /// nginx's `$time_local` (and ALB's in the same form): `[10/Oct/2000:13:55:36 -0700]`.
    case nginx
    /// ISO-8601 with `Z` or an offset: `2026-05-01T09:00:00.250Z`, the first field of the line.
    case iso
    /// Seconds since 1970 with an optional fraction: `1714554000.25`, the first field.
    case epoch
}

/// Where a replayed plan came from, for validate's summary and run.json.
package struct ArrivalReplay: Sendable, Equatable {
    package enum Source: Sendable, Equatable {
        /// One row per `interval`; `rows` of them were kept (between `from` and `to`).
        case counts(column: String, interval: ReplayInterval, rows: Int)
        /// One arrival per line, streamed by the plan.
        case log(ReplayLog)
    }

    /// The path as the scenario writes it (messages name it so).
    package var file: String
    /// Resolved against the scenario's folder.
    package var path: String
    package var source: Source
    /// `speed: 2`: the file's time runs twice as fast.
    package var speed: Double
    /// A counts file's time that is the run's second 0 (`from`, else the first row), as its
    /// first column writes it, for `compare --real`'s alignment; nil for a log.
    package var origin: String? = nil

    /// `stats.csv, column queueinflow, 60 rows of a minute` or `access.log, 1,200 nginx lines`,
    /// with `at 2× speed` when sped up.
    package var description: String {
        let speedText = speed == 1 ? "" : ", at \(ScenarioUnits.factor(speed))× speed"
        switch source {
        case .counts(let column, let interval, let rows):
            let rowsText = rows == 1 ? "1 row" : "\(ScenarioUnits.grouped(Double(rows))) rows"
            return "\(file), column \(column), \(rowsText) of a \(interval.rawValue)\(speedText)"
        case .log(let log):
            let lines = log.lines == 1 ? "1 line" : "\(ScenarioUnits.grouped(Double(log.lines))) lines"
            return "\(file), \(lines) with \(log.format.rawValue) timestamps\(speedText)"
        }
    }
}

extension Arrivals {
    /// Replayed counts: each steady phase brings exactly its count (`uniform` spreads them
    /// evenly, `poisson` places them at seeded random instants within the phase).
    package var exactCounts: Bool {
        if case .counts = replay?.source { return true }
        return false
    }

    /// The streamed log of a `timestamps:` replay.
    package var replayLog: ReplayLog? {
        if case .log(let log) = replay?.source { return log }
        return nil
    }
}

/// Turns the rows of a counts file into phases: the arithmetic of `replay:` (docs/scenarios.md).
package enum ReplayCountsPlan {
    /// The replay's second 0 as the file's first column writes it: an ISO-8601 instant (to the
    /// millisecond), or a number of intervals (a whole one without a point, as `compare` writes
    /// numbers).
    static func originText(_ origin: Double, instants: Bool, interval: ReplayInterval) -> String {
        guard instants else {
            let intervals = origin / Double(interval.seconds)
            return intervals == intervals.rounded() && abs(intervals) < 1e15
                ? String(Int64(intervals)) : String(intervals)
        }
        return ReplayTimeText.isoText(Int64((origin * 1000).rounded()) * 1_000_000)
    }

    /// One kept row: its start in seconds since the replay's second 0 (file time, before
    /// `speed`) and its count as written.
    package struct Row: Sendable, Equatable {
        package var offset: Double
        package var count: Double

        package init(offset: Double, count: Double) {
            self.offset = offset
            self.count = count
        }
    }

    /// The phases: a row of `interval` seconds becomes a steady phase of `interval / speed`
    /// bringing its share of the scaled total, a row that brings nobody and a gap between rows
    /// become pauses.
    ///
    /// Counts are scaled by cumulative rounding: after row i the plan has brought
    /// round(S_i × scale) visitors, S_i being the sum of the counts up to row i (halves up).
    /// Every row gets a whole count, the total is exactly round(total × scale), and no row
    /// drifts more than half a visitor from its own count × scale.
    package static func phases(rows: [Row], interval: ReplayInterval, scale: Double, speed: Double) -> [ArrivalPhase] {
        var phases: [ArrivalPhase] = []
        var written = Duration.zero
        var cumulative = 0.0
        var brought = 0
        func addPause(_ length: Duration) {
            guard length > .zero else { return }
            if case .pause(let before) = phases.last {
                phases[phases.count - 1] = .pause(duration: before + length)
            } else {
                phases.append(.pause(duration: length))
            }
        }
        for row in rows {
            // Each boundary is placed from the file's own time, so rounding to nanoseconds
            // never accumulates over thousands of rows.
            let start = instant(row.offset / speed)
            let end = instant((row.offset + Double(interval.seconds)) / speed)
            addPause(start - written)
            cumulative += row.count
            let total = roundHalfUp(cumulative * scale)
            let count = total - brought
            brought = total
            if count > 0 {
                let length = end - start
                phases.append(.steady(duration: length, rate: Double(count) / length.secondsDouble, rampTo: nil))
            } else {
                addPause(end - start)
            }
            written = end
        }
        return phases
    }

    /// A whole count, halves up; saturating (the validator refuses the total before it matters).
    static func roundHalfUp(_ value: Double) -> Int {
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        return rounded >= Double(Int.max) ? Int.max : max(0, Int(rounded))
    }

    static func instant(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
