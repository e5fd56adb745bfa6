/// `arrivals: { replay: FILE, … }` (docs/scenarios.md, "Replaying a crowd"): a file of counts
/// per interval becomes the phases, a log of timestamps is checked and streamed by the plan.
/// A problem in the file is `FILE:LINE: …`, reported at the scenario's `replay:`.
extension ScenarioValidator {
    /// The keys only a replay reads, written without `replay:`: refused by name.
    mutating func refuseReplayKeysWithoutReplay(_ raw: RawArrivals) {
        let written: [(String, YamlMark?)] = [
            ("column", raw.column?.mark), ("per", raw.per?.mark), ("within", raw.within?.mark),
            ("speed", raw.speed?.mark), ("from", raw.from?.mark), ("to", raw.to?.mark),
            ("timestamps", raw.timestamps?.mark),
        ]
        for (key, keyMark) in written {
            guard let keyMark else { continue }
            fail(
                "`arrivals.\(key)` belongs to a replay: add `replay: FILE` beside it, or remove it", at: keyMark)
        }
    }

    mutating func replayArrivals(_ raw: Positioned<RawArrivals>, file: Positioned<String>) -> Arrivals? {
        let value = raw.value
        if let phases = value.phases {
            fail("`arrivals.replay` takes the place of `phases`: give one or the other", at: phases.mark)
        }
        if let process = value.process {
            fail(
                "with `arrivals.replay`, `within: uniform|poisson` places the arrivals in each interval; remove `process`",
                at: process.mark)
        }
        guard checkPrintable(file, key: "arrivals.replay"), !file.value.trimmingSpaces.isEmpty else {
            if file.value.trimmingSpaces.isEmpty { fail("`arrivals.replay` must name a file", at: file.mark) }
            return nil
        }
        let path = file.value.hasPrefix("/") ? file.value : PathText.appending(file.value, to: scenarioDirectory)
        let speed = replayFactor(value.speed, key: "arrivals.speed")
        let maxVisitors = arrivalCap(value.maxVisitors)
        if let timestamps = value.timestamps {
            return logArrivals(value, file: file, path: path, timestamps: timestamps, speed: speed, cap: maxVisitors)
        }
        return countsArrivals(value, file: file, path: path, speed: speed, cap: maxVisitors)
    }

    /// A file of counts per interval: the rows between `from` and `to`, scaled, as phases.
    private mutating func countsArrivals(
        _ value: RawArrivals, file: Positioned<String>, path: String, speed: Double?, cap: Int??
    ) -> Arrivals? {
        let interval = choice(value.per, key: "arrivals.per", default: ReplayInterval.minute)
        let within = choice(value.within, key: "arrivals.within", default: ArrivalProcess.uniform)
        let scale = replayFactor(value.scale, key: "arrivals.scale")
        guard let speed, let scale, let cap else { return nil }
        let table: ReplayCountsFile
        do {
            table = try ReplayCountsFile.read(
                path: path, file: file.value, column: value.column?.value, interval: interval, what: "arrivals")
        } catch {
            replayFileProblem(error, file: file, column: value.column)
            return nil
        }
        guard let window = replayWindow(value.from, value.to, key: "arrivals", table: table, interval: interval),
            let rows = keptRows(table, window: window, file: file)
        else { return nil }
        // The busiest row, before the cumulative rounding moves it by under one visitor.
        let length = Double(interval.seconds) / speed
        if let busiest = rows.max(by: { ($0.value ?? 0) < ($1.value ?? 0) }),
            (busiest.value ?? 0) * scale / length > ScenarioLimits.highestRate
        {
            fail(
                "`arrivals.replay`: \(file.value):\(busiest.line): \(ScenarioUnits.grouped((busiest.value ?? 0) * scale)) arrivals in \(ScenarioUnits.describe(ReplayCountsPlan.instant(length))) is above the rate limit (\(ScenarioLimits.highestRateText)); lower `scale` or `speed`",
                at: file.mark)
            return nil
        }
        let total = rows.reduce(0.0) { $0 + ($1.value ?? 0) } * scale
        guard total.rounded(.toNearestOrAwayFromZero) >= 1 else {
            fail(
                "`arrivals.replay`: the rows of \(file.value) between `from` and `to` bring no visitors", at: file.mark)
            return nil
        }
        guard min(total, Double(cap ?? .max)) <= Double(ScenarioLimits.mostVisitors) else {
            fail(
                "`arrivals.replay`: \(file.value) brings \(ScenarioUnits.grouped(total)) visitors; a run holds at most \(ScenarioLimits.mostVisitorsText) (lower `scale` or set `maxVisitors`)",
                at: file.mark)
            return nil
        }
        let origin = window.from ?? table.rows[0].time
        let planRows = rows.map { ReplayCountsPlan.Row(offset: $0.time - origin, count: $0.value ?? 0) }
        let phases = ReplayCountsPlan.phases(rows: planRows, interval: interval, scale: scale, speed: speed)
        var arrivals = Arrivals(process: within, phases: phases, maxVisitors: cap)
        arrivals.scale = scale
        arrivals.replay = ArrivalReplay(
            file: file.value, path: path, source: .counts(column: table.column, interval: interval, rows: rows.count),
            speed: speed,
            origin: ReplayCountsPlan.originText(origin, instants: table.timesAreInstants, interval: interval))
        guard arrivals.plannedDuration <= ScenarioLimits.longestDuration else {
            fail(
                "`arrivals.replay`: \(file.value) lasts \(ScenarioUnits.describe(arrivals.plannedDuration)) at this speed; the arrival plan may last at most \(ScenarioLimits.longestDurationText)",
                at: file.mark)
            return nil
        }
        return arrivals
    }

    /// The rows from `from` (inclusive) to `to` (exclusive), refused when none is left.
    private mutating func keptRows(
        _ table: ReplayCountsFile, window: (from: Double?, to: Double?), file: Positioned<String>
    ) -> [ReplayCountsFile.Row]? {
        let rows = table.rows.filter { row in
            row.time >= (window.from ?? -.infinity) && row.time < (window.to ?? .infinity)
        }
        guard rows.isEmpty else { return rows }
        fail(
            "`arrivals.replay`: no row of \(file.value) falls between `from` and `to` (its rows run from \(table.rows[0].timeText) to \(table.rows[table.rows.count - 1].timeText))",
            at: file.mark)
        return nil
    }

    /// A log: every line's time is read and checked now; the plan reads them again as it runs.
    private mutating func logArrivals(
        _ value: RawArrivals, file: Positioned<String>, path: String, timestamps: Positioned<String>,
        speed: Double?, cap: Int??
    ) -> Arrivals? {
        let format = choice(timestamps, key: "arrivals.timestamps", default: ReplayTimestamps.nginx)
        let countsOnly: [(String, YamlMark?)] = [
            ("column", value.column?.mark), ("per", value.per?.mark), ("within", value.within?.mark),
            ("scale", value.scale?.mark), ("from", value.from?.mark), ("to", value.to?.mark),
        ]
        for case (let key, let mark?) in countsOnly {
            fail(
                "`arrivals.\(key)` reads a file of counts; a log (`timestamps:`) replays one arrival per line as written (only `speed` and `maxVisitors` apply)",
                at: mark)
        }
        guard let speed, let cap, ReplayTimestamps(rawValue: timestamps.value) != nil,
            countsOnly.allSatisfy({ $0.1 == nil })
        else { return nil }
        let log: ReplayLog
        let bins: ReplayLogBins
        do {
            (log, bins) = try ReplayLogBins.scan(path: path, name: file.value, format: format, speed: speed)
        } catch {
            fail("`arrivals.replay`: \(error)", at: file.mark)
            return nil
        }
        guard log.span <= ScenarioLimits.longestDuration else {
            fail(
                "`arrivals.replay`: \(file.value) spans \(ScenarioUnits.describe(log.span)) at this speed; the arrival plan may last at most \(ScenarioLimits.longestDurationText)",
                at: file.mark)
            return nil
        }
        var arrivals = Arrivals(process: .uniform, phases: bins.phases(speed: speed), maxVisitors: cap)
        arrivals.replay = ArrivalReplay(file: file.value, path: path, source: .log(log), speed: speed)
        return arrivals
    }

    /// `from` and `to` on the file's axis (seconds; since 1970 for ISO times): an ISO-8601 time
    /// for an ISO column, a number in the file's unit for a numeric one, or a duration with a
    /// unit (`30m`) counted from the file's first row. `.some(nil)` edges are open.
    func replayEdge(_ text: String, table: ReplayCountsFile, interval: ReplayInterval) -> Double?? {
        if let nanoseconds = ReplayTimeText.iso(Array(text.utf8)) {
            return table.timesAreInstants ? Double(nanoseconds) / 1e9 : .some(nil)
        }
        if let last = text.last, last.isLetter, let duration = ScenarioUnits.duration(text) {
            return table.rows[0].time + duration.secondsDouble
        }
        if !table.timesAreInstants, let number = ScenarioUnits.decimal(Substring(text)) {
            return number * Double(interval.seconds)
        }
        return nil
    }

    /// Reads both edges; nil when one is wrong (already reported).
    mutating func replayWindow(
        _ from: YamlNode?, _ to: YamlNode?, key: String, table: ReplayCountsFile, interval: ReplayInterval
    ) -> (from: Double?, to: Double?)? {
        let expected =
            table.timesAreInstants
            ? "an ISO-8601 time such as 2026-05-01T09:30:00Z (as the file's first column) or a duration from its first row such as 30m"
            : "a number of \(interval.rawValue)s (as the file's first column) or a duration from its first row such as 30m"
        var edges: [Double?] = []
        for (name, node) in [("from", from), ("to", to)] {
            guard let node, !node.isNull else {
                edges.append(nil)
                continue
            }
            guard let text = scalarText(node, key: "\(key).\(name)", expected: expected),
                case .some(.some(let edge)) = replayEdge(text, table: table, interval: interval)
            else {
                if node.scalarText != nil {
                    fail("`\(key).\(name)` must be \(expected), found \(node.kindDescription)", at: node.mark)
                }
                return nil
            }
            edges.append(edge)
        }
        if let start = edges[0], let end = edges[1], end <= start, let node = to {
            fail("`\(key).to` must come after `\(key).from`", at: node.mark)
            return nil
        }
        return (edges[0], edges[1])
    }

    /// `speed` or a replay's `scale`: a factor above 0 (`2`, `0.5`, `150%`), 1 when absent.
    mutating func replayFactor(_ node: YamlNode?, key: String) -> Double? {
        guard let node, !node.isNull else { return 1 }
        let expected = "a factor above 0 such as 2, 0.5 or 150%"
        guard let text = scalarText(node, key: key, expected: expected) else { return nil }
        guard let factor = ScenarioUnits.fraction(text), factor > 0, factor <= ScenarioLimits.largestArrivalScale
        else {
            fail(
                "`\(key)` must be \(expected), at most \(ScenarioUnits.grouped(ScenarioLimits.largestArrivalScale)), found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        return factor
    }

    /// A file problem, at `column:` when the column is what is wrong, else at `replay:`.
    mutating func replayFileProblem(
        _ error: ReplayFileError, file: Positioned<String>, column: Positioned<String>?, key: String = "arrivals"
    ) {
        if let column, error.line == 1, error.message.hasPrefix("no column") {
            fail("`\(key).column`: \(error)", at: column.mark)
        } else {
            fail("`\(key).replay`: \(error)", at: file.mark)
        }
    }
}
