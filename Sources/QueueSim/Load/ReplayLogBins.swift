/// A replayed log counted per bin, for everything that reads the arrival phases (validate's
/// summary, the fluid estimate, the memory floor): the log's arrivals per second, in wider
/// bins (2 s, 4 s, …) when a long log would need more than `mostBins` of them. The plan itself
/// replays the lines; these phases are only its outline.
struct ReplayLogBins {
    static let mostBins = 20_000

    private(set) var width: Int64 = 1_000_000_000
    private(set) var counts: [Int] = []

    /// Reads every line of `path` once: each must hold a time, none before the line above.
    static func scan(path: String, name: String, format: ReplayTimestamps, speed: Double)
        throws(ReplayFileError) -> (ReplayLog, ReplayLogBins)
    {
        let file = try ReplayLogFile(path: path, name: name)
        var cursor = ReplayLogCursor(file: file, format: format)
        var bins = ReplayLogBins()
        var lines = 0
        var first: Int64?
        var last: Int64 = 0
        while let time = try cursor.next() {
            let start = first ?? time
            first = start
            last = time
            lines += 1
            guard lines <= ScenarioLimits.mostVisitors else {
                throw ReplayFileError(
                    file: name, line: cursor.line,
                    "more than \(ScenarioLimits.mostVisitorsText) lines; a run holds at most that many visitors")
            }
            bins.add(offset: time - start)
        }
        guard let first else {
            throw ReplayFileError(
                file: name, "no line with a time; expected one \(ReplayLogCursor.expected(format)) a line")
        }
        let log = ReplayLog(format: format, lines: lines, first: first, last: last, speed: speed, file: file)
        return (log, bins)
    }

    /// Counts one arrival `offset` nanoseconds after the first, widening the bins as needed.
    mutating func add(offset: Int64) {
        var index = Int(offset / width)
        while index >= Self.mostBins {
            counts = stride(from: 0, to: counts.count, by: 2).map {
                counts[$0] + (counts.indices.contains($0 + 1) ? counts[$0 + 1] : 0)
            }
            width *= 2
            index = Int(offset / width)
        }
        if index >= counts.count { counts += repeatElement(0, count: index + 1 - counts.count) }
        counts[index] += 1
    }

    /// One steady phase per bin with arrivals (a pause for an empty one), on the run's clock.
    func phases(speed: Double) -> [ArrivalPhase] {
        let length = Duration.nanoseconds(Int64((Double(width) / speed).rounded()))
        var phases: [ArrivalPhase] = []
        for count in counts {
            if count > 0 {
                phases.append(.steady(duration: length, rate: Double(count) / length.secondsDouble, rampTo: nil))
            } else if case .pause(let before) = phases.last {
                phases[phases.count - 1] = .pause(duration: before + length)
            } else {
                phases.append(.pause(duration: length))
            }
        }
        return phases
    }
}
