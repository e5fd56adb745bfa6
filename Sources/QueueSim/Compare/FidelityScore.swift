/// How close a run came to the real event, series by series (`queuesim compare --real`).
///
/// A series' error is its mean absolute percentage error over the minutes both sides have:
/// each minute's |run − real| ÷ max(real, 1) (a floor of one visitor, or one minute of wait, so
/// a real minute of 0 does not divide by zero), minutes where both are 0 left out (an empty
/// tail would otherwise dilute the error). Its largest gap is the minute where |run − real| is
/// largest (the first such minute). The score is the mean of the errors of the series with a
/// minute scored.
package enum FidelityScore {
    /// A real minute's value below this counts as this, as a percentage's denominator.
    package static let floor = 1.0

    /// `offsetMinutes`: the real file's minute (from its first row) that is the run's minute 0.
    package static func compute(
        run: RunMinutes, real: RealStats, rules: [FidelityRule], offsetMinutes: Int = 0
    ) -> FidelityReport {
        let scores = RunMinutes.seriesNames.compactMap { name -> FidelitySeriesScore? in
            guard let realValues = real.series[name], let runValues = run.series[name] else { return nil }
            return score(name, run: runValues, real: realValues, offset: offsetMinutes, stats: real)
        }
        // A series 0 on both sides throughout says nothing either way: it does not pull the score down.
        let errors = scores.filter { $0.scoredMinutes > 0 }.compactMap(\.mape)
        let overall = errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
        var report = FidelityReport(
            offsetMinutes: offsetMinutes, series: scores, score: overall,
            identity: OutflowIdentity.check(real), verdicts: [])
        report.verdicts = rules.map { report.verdict($0) }
        return report
    }

    private static func score(
        _ name: String, run: [Double?], real: [Double?], offset: Int, stats: RealStats
    ) -> FidelitySeriesScore {
        var result = FidelitySeriesScore(name: name, mape: nil, comparedMinutes: 0, scoredMinutes: 0, largestGap: nil)
        var errorSum = 0.0
        for runMinute in run.indices {
            let realMinute = runMinute + offset
            guard real.indices.contains(realMinute), let realValue = real[realMinute], let runValue = run[runMinute]
            else { continue }
            result.comparedMinutes += 1
            let gap = runValue - realValue
            if abs(gap) > abs(result.largestGap?.gap ?? 0) || result.largestGap == nil {
                result.largestGap = FidelityGap(
                    runMinute: runMinute, time: stats.timeText(minute: realMinute), run: runValue, real: realValue,
                    gap: gap)
            }
            guard runValue != 0 || realValue != 0 else { continue }
            result.scoredMinutes += 1
            errorSum += abs(gap) / max(abs(realValue), floor)
        }
        if result.scoredMinutes > 0 { result.mape = 100 * errorSum / Double(result.scoredMinutes) }
        if result.comparedMinutes > 0, result.scoredMinutes == 0 { result.mape = 0 }
        return result
    }
}

/// The minute where a series' run and real values are furthest apart.
package struct FidelityGap: Sendable, Equatable {
    /// The run's minute (0 = its first), and the real minute's time as the file writes it.
    package var runMinute: Int
    package var time: String
    package var run: Double
    package var real: Double
    /// run − real.
    package var gap: Double
}

package struct FidelitySeriesScore: Sendable, Equatable {
    package var name: String
    /// Percent; nil when no minute could be compared. 0 when every compared minute was 0 on both sides.
    package var mape: Double?
    /// Minutes with a value on both sides, and of those the ones not 0 on both.
    package var comparedMinutes: Int
    package var scoredMinutes: Int
    package var largestGap: FidelityGap?
}

/// Queue-it's identity safetynetoutflow + queueoutflow = total outflow, checked on the real
/// file when it has a `totaloutflow` column (an export of the dashboard's total; the API's
/// detail types have none).
package struct OutflowIdentity: Sendable, Equatable {
    /// Minutes with all three values, and those where the identity does not hold.
    package var checkedMinutes: Int
    package var broken: [Broken]
    /// What the file lacks to check it (nil when checked).
    package var unchecked: String?

    package struct Broken: Sendable, Equatable {
        package var time: String
        package var line: Int?
        package var queue: Double
        package var safetyNet: Double
        package var total: Double
    }

    static func check(_ real: RealStats) -> OutflowIdentity? {
        guard let total = real.series[RealStats.totalOutflowColumn] else { return nil }
        let missing = ["queueoutflow", "safetynetoutflow"].filter { real.series[$0] == nil }
        guard missing.isEmpty, let queue = real.series["queueoutflow"], let safety = real.series["safetynetoutflow"]
        else {
            return OutflowIdentity(
                checkedMinutes: 0, broken: [], unchecked: "the file has no " + missing.joined(separator: " and "))
        }
        var identity = OutflowIdentity(checkedMinutes: 0, broken: [], unchecked: nil)
        for minute in 0..<real.count {
            guard let q = queue[minute], let s = safety[minute], let t = total[minute] else { continue }
            identity.checkedMinutes += 1
            if abs(q + s - t) > 1e-9 {
                identity.broken.append(
                    Broken(
                        time: real.timeText(minute: minute), line: real.lines[minute], queue: q, safetyNet: s, total: t)
                )
            }
        }
        return identity
    }
}

package struct FidelityVerdict: Sendable, Equatable {
    package var rule: FidelityRule
    /// The judged value; nil when the real file lacks the series or no minute could be compared.
    package var value: Double?
    package var holds: Bool
}

package struct FidelityReport: Sendable, Equatable {
    package var offsetMinutes: Int
    package var series: [FidelitySeriesScore]
    /// The mean of the series' errors (percent): the one number to make small.
    package var score: Double?
    package var identity: OutflowIdentity?
    package var verdicts: [FidelityVerdict]

    package var broken: [FidelityVerdict] { verdicts.filter { !$0.holds } }

    /// A rule on a series the file does not have, or with no minute to compare, holds
    /// vacuously but says so (value nil): there is nothing to be wrong about.
    func verdict(_ rule: FidelityRule) -> FidelityVerdict {
        let value: Double?
        switch rule.measure {
        case .score: value = score
        case .mape: value = series.first { $0.name == rule.series }?.mape
        case .gap: value = series.first { $0.name == rule.series }?.largestGap.map { abs($0.gap) }
        }
        guard let value, let limit = rule.limit else { return FidelityVerdict(rule: rule, value: value, holds: true) }
        return FidelityVerdict(rule: rule, value: value, holds: rule.inclusive ? value <= limit : value < limit)
    }
}
