import Foundation

/// The statistics types `import queue-it-stats` asks for, in the columns' order (the detail
/// types of `GET /2_0/event/{eventId}/queue/statistics/details/{type}`).
package enum StatisticsType {
    package static let all = [
        "queueinflow", "queuebeforeeventinflow", "queueuniqueinflow", "queueoutflow", "queueuniqueoutflow",
        "safetynetoutflow", "queueidsinqueue", "queueexpectedwaittime", "queueactualwaittime", "maxoutflow",
        "oldqueuenumbers", "redirectedpercentage", "returningqueueitemsinlessthan30s", "exceededmaxredirectcount",
        "queueidscanceled",
    ]
}

/// One answer of the statistics details API: `{ "From", "To", "Interval", "Entries": [ { "Sum",
/// "MinMinute", "MaxMinute" } ], "SumOffset" }`, numbers as strings.
///
/// Read as the public references do (docs/import.md): one entry per `Interval` minutes from
/// `From`, `Sum` that entry's total, `MinMinute`/`MaxMinute` its smallest and largest minute,
/// `SumOffset` the total before `From`. Only `From`, `Interval` and each `Sum` make the table;
/// the raw answer is kept beside it in case Queue-it's meaning differs.
package struct StatisticsAnswer: Sendable, Equatable {
    package var from: QueueItInstant
    package var to: QueueItInstant?
    package var intervalMinutes: Int
    /// Each entry's `Sum`; nil where the entry has none.
    package var sums: [Double?]
    package var sumOffset: Double?

    /// The minute after the last entry's.
    package var coveredEnd: QueueItInstant { from.minuteStart.adding(minutes: sums.count * intervalMinutes) }

    package init(
        from: QueueItInstant, to: QueueItInstant? = nil, intervalMinutes: Int = 1, sums: [Double?],
        sumOffset: Double? = nil
    ) {
        self.from = from
        self.to = to
        self.intervalMinutes = intervalMinutes
        self.sums = sums
        self.sumOffset = sumOffset
    }

    package static func parse(_ bytes: [UInt8], source: String) throws(ImportFailure) -> StatisticsAnswer {
        let object = try ImportJSON.object(
            bytes, source: source, expecting: "a statistics answer (`From`, `Interval`, `Entries`)")
        guard let fromText = text(object["From"]), let from = QueueItValue.instant(fromText) else {
            throw ImportFailure.unreadable(source, "`From` is missing or not a time; expected a statistics answer")
        }
        let to = text(object["To"]).flatMap(QueueItValue.instant)
        var interval = 1
        if let intervalText = text(object["Interval"]) {
            guard let minutes = QueueItValue.integer(intervalText), (1...1440).contains(minutes) else {
                throw ImportFailure.unreadable(
                    source, "`Interval` `\(EventFieldCatalog.shown("", intervalText))` is not a number of minutes")
            }
            interval = minutes
        }
        guard let entries = object["Entries"] as? [Any] else {
            throw ImportFailure.unreadable(source, "`Entries` is missing or not a list; expected a statistics answer")
        }
        var sums: [Double?] = []
        sums.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let fields = entry as? [String: Any] else {
                throw ImportFailure.unreadable(source, "entry \(index + 1) of `Entries` is not an object")
            }
            guard let sumText = text(fields["Sum"]) else {
                sums.append(nil)
                continue
            }
            guard let sum = QueueItValue.number(sumText) else {
                throw ImportFailure.unreadable(
                    source, "entry \(index + 1)'s `Sum` `\(EventFieldCatalog.shown("", sumText))` is not a number")
            }
            sums.append(sum)
        }
        let offset = text(object["SumOffset"]).flatMap(QueueItValue.number)
        return StatisticsAnswer(from: from, to: to, intervalMinutes: interval, sums: sums, sumOffset: offset)
    }

    /// A JSON value as the API's text: strings as they are, numbers written plainly.
    private static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: string.trimmingSpaces.isEmpty ? nil : string
        case let number as NSNumber: ImportJSON.text(of: number)
        default: nil
        }
    }
}

/// `stats.csv`: `minute,<type>,…`, one row per minute from `from` (its minute's start) to before
/// `to`, ascending, no gaps; a minute without data is an empty cell. An entry of `Interval` k
/// minutes puts `Sum / k` in each of its minutes (for a count, the count spread evenly; for a
/// level summed per minute, its mean) and a warning says so.
package enum StatisticsTable {
    /// The longest range one import writes: 92 days of minutes (132,480 rows).
    package static let longestRangeMinutes = 92 * 1440

    package static func csv(
        types: [String], answers: [String: StatisticsAnswer], from: QueueItInstant, to: QueueItInstant
    ) -> (text: String, warnings: [String]) {
        let start = from.minuteStart
        let minutes = Int((to.millisecondsSinceEpoch - start.millisecondsSinceEpoch + 59_999) / 60_000)
        var columns: [[Double?]] = []
        var warnings: [String] = []
        for type in types {
            var column = [Double?](repeating: nil, count: max(minutes, 0))
            guard let answer = answers[type] else {
                columns.append(column)
                continue
            }
            let k = answer.intervalMinutes
            if k > 1 {
                warnings.append(
                    "\(type): Interval \(k): each entry's Sum is spread evenly over its \(k) minutes "
                        + "(docs/import.md); the raw answer is kept")
            }
            let offset = Int((answer.from.minuteStart.millisecondsSinceEpoch - start.millisecondsSinceEpoch) / 60_000)
            for (index, sum) in answer.sums.enumerated() {
                guard let sum else { continue }
                for minute in 0..<k {
                    let row = offset + index * k + minute
                    if row >= 0, row < column.count { column[row] = sum / Double(k) }
                }
            }
            columns.append(column)
        }
        var text = "minute," + types.joined(separator: ",") + "\n"
        for row in 0..<max(minutes, 0) {
            text += start.adding(minutes: row).description
            for column in columns { text += "," + (column[row].map(ImportNumbers.text) ?? "") }
            text += "\n"
        }
        return (text, warnings)
    }
}
