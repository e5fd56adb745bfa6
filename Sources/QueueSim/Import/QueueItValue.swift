/// How Queue-it's Admin API writes values: every value travels as a string, even numbers and
/// booleans (`"15"`, `"True"`), and times come as ISO-8601 UTC with seven fractional digits
/// (`2015-04-28T15:25:46.0000000Z`) or as .NET's `\/Date(1310669017000)\/` (milliseconds since
/// the epoch). Exported files sometimes hold real JSON numbers and booleans instead, so both
/// are read.
package enum QueueItValue {
    /// `True`/`False` in any case (`"true"` from a hand-edited export too).
    package static func bool(_ text: String) -> Bool? {
        switch text.trimmingSpaces.lowercased() {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// A whole number (`"15"`, `"15.0"`); nil for anything else.
    package static func integer(_ text: String) -> Int? {
        guard let value = number(text), value == value.rounded(), abs(value) < 1e15 else { return nil }
        return Int(value)
    }

    /// A plain decimal number (`"12"`, `"12.5"`, `"-3"`); no exponents, `NaN` or `Infinity`.
    package static func number(_ text: String) -> Double? {
        ScenarioUnits.decimal(text.trimmingSpaces)
    }

    /// An instant in either of the API's forms; nil for anything else.
    package static func instant(_ text: String) -> QueueItInstant? {
        let trimmed = String(text.trimmingSpaces)
        if let dotNet = dotNetDate(trimmed) { return dotNet }
        return QueueItInstant(iso8601: trimmed)
    }

    /// `/Date(1310669017000)/` (JSON decoding has already turned `\/` into `/`), its escaped
    /// form `\/Date(…)\/`, and the variant with a zone offset `/Date(1310669017000+0100)/`: the
    /// milliseconds are UTC whatever the offset says (the offset only names the writer's zone).
    private static func dotNetDate(_ text: String) -> QueueItInstant? {
        var body = Substring(text)
        for wrapper in [("\\/Date(", ")\\/"), ("/Date(", ")/")] where body.hasPrefix(wrapper.0) {
            guard body.hasSuffix(wrapper.1) else { return nil }
            body = body.dropFirst(wrapper.0.count).dropLast(wrapper.1.count)
            var digits = body
            if let offset = body.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) {
                let zone = body[body.index(after: offset)...]
                guard zone.count == 4, zone.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                digits = body[..<offset]
            }
            guard let milliseconds = Int64(digits) else { return nil }
            return QueueItInstant(millisecondsSinceEpoch: milliseconds)
        }
        return nil
    }
}

/// A moment in UTC, to the millisecond (the API's seventh fractional digit, 100 ns, is below
/// anything a rehearsal schedules).
package struct QueueItInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var millisecondsSinceEpoch: Int64

    package init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// `YYYY-MM-DDTHH:MM:SS`, optional fraction (any number of digits), then `Z`, `+HH:MM`,
    /// `-HH:MM` or nothing (read as UTC: the API writes UTC).
    package init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = Self.digits(bytes, 0, 4), let month = Self.digits(bytes, 5, 2),
            let day = Self.digits(bytes, 8, 2),
            let hour = Self.digits(bytes, 11, 2), let minute = Self.digits(bytes, 14, 2),
            let second = Self.digits(bytes, 17, 2),
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        var index = 19
        var milliseconds: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                milliseconds += Int64(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard bytes.count == index + 6, bytes[index + 3] == UInt8(ascii: ":"),
                    let hours = Self.digits(bytes, index + 1, 2), let minutes = Self.digits(bytes, index + 4, 2)
                else { return nil }
                offsetMinutes = Int64(hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
                index += 6
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetMinutes * 60
        millisecondsSinceEpoch = seconds * 1000 + milliseconds
    }

    package static func < (lhs: QueueItInstant, rhs: QueueItInstant) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    /// The instant at the start of its minute.
    package var minuteStart: QueueItInstant {
        QueueItInstant(millisecondsSinceEpoch: Self.floor(millisecondsSinceEpoch, 60_000))
    }

    package func adding(minutes: Int) -> QueueItInstant {
        QueueItInstant(millisecondsSinceEpoch: millisecondsSinceEpoch + Int64(minutes) * 60_000)
    }

    /// `2026-05-01T09:00:00Z`, with `.250` when the instant is not on a whole second.
    package var description: String {
        let seconds = Self.floor(millisecondsSinceEpoch, 1000) / 1000
        let milliseconds = millisecondsSinceEpoch - seconds * 1000
        let days = Self.floor(seconds, 86_400) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60))"
        text += ":\(two(secondOfDay % 60))"
        if milliseconds != 0 {
            let padded = String(milliseconds + 1000).dropFirst()
            text += "." + padded
        }
        return text + "Z"
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, as ISO-8601)

    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        value >= 0 ? value - value % unit : value - ((value % unit) + unit) % unit
    }

    /// Howard Hinnant's days_from_civil.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's civil_from_days.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
