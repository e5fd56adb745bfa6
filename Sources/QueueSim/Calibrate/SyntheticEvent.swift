import Foundation

/// A synthetic "real" event, made by a model that is not queuesim's engine, so that
/// `calibrate` can be checked against parameters known in advance (docs/calibrate.md).
///
/// The model: a FIFO room with wasted turns. Visitor k arrives at a_k (each minute's count
/// placed uniformly at random within the minute) and takes number k. Turns are handed out one
/// every 60/outflow seconds, never before the number's owner arrived: t_k = max(a_k, t_{k−1} +
/// 60/outflow). A no-show (probability `noShow`) leaves at once; any other visitor draws an
/// exponential patience of mean `patienceMean` and leaves at a_k + patience if that is before
/// t_k. Either way a left visitor's turn t_k is spent (an unused queue number). Everyone else is
/// redirected at t_k. No HTTP, no polls, no SDK: only the room's arithmetic.
///
/// The series are counted as `RunMinutes` counts a run's (docs/reports.md).
package struct SyntheticEvent: Sendable, Equatable {
    /// Arrivals per minute, from the event's first minute.
    package var arrivalsPerMinute: [Int]
    /// Turns per minute.
    package var outflowPerMinute: Double
    /// The exponential patience's mean, in seconds.
    package var patienceMean: Double
    /// The no-show share, 0...1.
    package var noShow: Double
    package var seed: UInt64
    /// How many minutes the file covers (at least the arrivals').
    package var minutes: Int

    package init(
        arrivalsPerMinute: [Int], outflowPerMinute: Double, patienceMean: Double, noShow: Double, seed: UInt64,
        minutes: Int? = nil
    ) {
        self.arrivalsPerMinute = arrivalsPerMinute
        self.outflowPerMinute = outflowPerMinute
        self.patienceMean = patienceMean
        self.noShow = noShow
        self.seed = seed
        self.minutes = max(minutes ?? arrivalsPerMinute.count, arrivalsPerMinute.count)
    }

    /// The series under Queue-it's statistics names, one value a minute (nil: a wait with
    /// nobody to average).
    package func series() -> [String: [Double?]] {
        var random = SplitMix(seed: seed)
        var counts = SyntheticCounts(minutes: minutes)
        let spacing = 60 / outflowPerMinute
        var lastTurn = -Double.infinity
        for (minute, count) in arrivalsPerMinute.enumerated() {
            let instants = (0..<count).map { _ in Double(minute) * 60 + 60 * random.unit() }.sorted()
            for arrival in instants {
                let turn = max(arrival, lastTurn + spacing)
                lastTurn = turn
                let isNoShow = random.unit() < noShow
                let patience = -log(1 - random.unit()) * patienceMean
                let passes = !isNoShow && arrival + patience >= turn
                counts.add(arrival: arrival, turn: turn, passed: passes)
            }
        }
        return counts.series()
    }

    /// stats.csv as `import queue-it-stats` writes it: `minute,<type>,…`, ISO-8601 UTC minutes
    /// from `start` (epoch seconds), empty cells for minutes without a value.
    package func statsCSV(start: Int64) -> String {
        let series = series()
        let names = RunMinutes.seriesNames
        var lines = ["minute," + names.joined(separator: ",")]
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for minute in 0..<minutes {
            let date = Date(timeIntervalSince1970: TimeInterval(start + Int64(minute) * 60))
            let cells = names.map { name in series[name]?[minute].map(Self.cell) ?? "" }
            lines.append(formatter.string(from: date) + "," + cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Counts whole, waits with at most three decimals.
    static func cell(_ value: Double) -> String {
        if value == value.rounded() { return String(Int64(value)) }
        return String(format: "%.3f", value)
    }
}

/// The per-minute sums of a synthetic event.
private struct SyntheticCounts {
    var minutes: Int
    var inflow: [Double]
    var outflow: [Double]
    var unused: [Double]
    var lineChanges: [Double]
    var waitByRedirect: [Double]
    var waitByEntry: [Double]
    var redirectsByEntry: [Double]

    init(minutes: Int) {
        self.minutes = minutes
        inflow = Array(repeating: 0, count: minutes)
        (outflow, unused, lineChanges) = (inflow, inflow, inflow)
        (waitByRedirect, waitByEntry, redirectsByEntry) = (inflow, inflow, inflow)
    }

    func minute(_ seconds: Double) -> Int? {
        let minute = Int(seconds / 60)
        return minute < minutes ? minute : nil
    }

    /// A number is in line at a minute's end when it entered at or before it and left after.
    func snapshot(_ seconds: Double) -> Int? {
        let minute = max(0, Int((seconds / 60).rounded(.up)) - 1)
        return minute < minutes ? minute : nil
    }

    mutating func add(arrival: Double, turn: Double, passed: Bool) {
        if let minute = minute(arrival) { inflow[minute] += 1 }
        if let minute = snapshot(arrival) { lineChanges[minute] += 1 }
        if let minute = snapshot(turn) { lineChanges[minute] -= 1 }
        guard passed else {
            if let minute = minute(turn) { unused[minute] += 1 }
            return
        }
        let wait = (turn - arrival) / 60
        if let minute = minute(turn) {
            outflow[minute] += 1
            waitByRedirect[minute] += wait
        }
        if let minute = minute(arrival) {
            waitByEntry[minute] += wait
            redirectsByEntry[minute] += 1
        }
    }

    func series() -> [String: [Double?]] {
        var inLine: [Double?] = []
        var running = 0.0
        for change in lineChanges {
            running += change
            inLine.append(running)
        }
        func mean(_ sums: [Double], _ counts: [Double]) -> [Double?] {
            zip(sums, counts).map { $1 > 0 ? $0 / $1 : nil }
        }
        return [
            "queueinflow": inflow, "queueoutflow": outflow, "safetynetoutflow": inflow.map { _ in 0 },
            "queueidsinqueue": inLine, "oldqueuenumbers": unused,
            "queueactualwaittime": mean(waitByRedirect, outflow),
            "queueexpectedwaittime": mean(waitByEntry, redirectsByEntry),
        ]
    }
}

/// SplitMix64: the synthetic event's own generator, apart from queuesim's seeded streams.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// In [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
