// Times as replayed files write them, read from bytes without Foundation's date parsing: a
// ten-million-line log is read this way twice (validate, then the run), so each line costs a
// few comparisons, and the answer never depends on the machine's time zone or locale.

/// Nanoseconds since 1970-01-01T00:00:00Z.
enum ReplayTimeText {
    /// `2026-05-01T09:00:00Z`, `2026-05-01 09:00:00.250+02:00`, `2026-05-01T09:00` (no zone:
    /// UTC). Seconds and the fraction are optional; a fraction past nanoseconds is cut.
    static func iso<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int64?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var reader = ByteCursor(bytes)
        guard let year = reader.digits(4), reader.take(UInt8(ascii: "-")), let month = reader.digits(2),
            reader.take(UInt8(ascii: "-")), let day = reader.digits(2)
        else { return nil }
        guard reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: " ")) || reader.take(UInt8(ascii: "t")) else {
            return nil
        }
        guard let hour = reader.digits(2), reader.take(UInt8(ascii: ":")), let minute = reader.digits(2) else {
            return nil
        }
        var second = 0
        var fraction: Int64 = 0
        if reader.take(UInt8(ascii: ":")) {
            guard let whole = reader.digits(2) else { return nil }
            second = whole
            if reader.take(UInt8(ascii: ".")) || reader.take(UInt8(ascii: ",")) {
                guard let nanos = reader.fractionNanoseconds() else { return nil }
                fraction = nanos
            }
        }
        var offsetSeconds = 0
        if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2) else { return nil }
            _ = reader.take(UInt8(ascii: ":"))
            guard let minutes = reader.digits(2), hours <= 23, minutes <= 59 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd else { return nil }
        guard let base = epochSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return (base - Int64(offsetSeconds)) * 1_000_000_000 + fraction
    }

    /// nginx's `$time_local` without its brackets: `10/Oct/2000:13:55:36 -0700`.
    static func nginx<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int64?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var reader = ByteCursor(bytes)
        guard let day = reader.digits(2), reader.take(UInt8(ascii: "/")), let month = reader.monthName(),
            reader.take(UInt8(ascii: "/")), let year = reader.digits(4), reader.take(UInt8(ascii: ":")),
            let hour = reader.digits(2), reader.take(UInt8(ascii: ":")), let minute = reader.digits(2),
            reader.take(UInt8(ascii: ":")), let second = reader.digits(2)
        else { return nil }
        var fraction: Int64 = 0
        if reader.take(UInt8(ascii: ".")) {
            guard let nanos = reader.fractionNanoseconds() else { return nil }
            fraction = nanos
        }
        guard reader.take(UInt8(ascii: " ")), let sign = reader.sign(), let hours = reader.digits(2),
            let minutes = reader.digits(2), reader.atEnd, hours <= 23, minutes <= 59
        else { return nil }
        guard let base = epochSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return (base - Int64(sign * (hours * 3600 + minutes * 60))) * 1_000_000_000 + fraction
    }

    /// `1714554000`, `1714554000.25`: seconds since 1970, not negative, before the year 2262.
    static func epoch<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int64?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var reader = ByteCursor(bytes)
        var seconds: Int64 = 0
        var digits = 0
        while let digit = reader.digit() {
            seconds = seconds * 10 + Int64(digit)
            digits += 1
            if digits > 10 { return nil }
        }
        guard digits > 0 else { return nil }
        var fraction: Int64 = 0
        if reader.take(UInt8(ascii: ".")) {
            guard let nanos = reader.fractionNanoseconds() else { return nil }
            fraction = nanos
        }
        guard reader.atEnd, seconds < 9_000_000_000 else { return nil }
        return seconds * 1_000_000_000 + fraction
    }

    /// Seconds since 1970 of a calendar time in UTC; nil for a day the month does not have.
    static func epochSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
            second <= 60, year >= 1970, year < 2262
        else { return nil }
        // Days from the civil date (H. Hinnant's algorithm), with March as the year's first month.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = Int64(era * 146_097 + dayOfEra - 719_468)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2026-05-01T09:00:00Z` for a time in nanoseconds since 1970 (messages).
    static func isoText(_ nanoseconds: Int64) -> String {
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds + 1) / 1_000_000_000 - 1
        let fraction = nanoseconds - seconds * 1_000_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds + 1) / 86_400 - 1
        let within = Int(seconds - days * 86_400)
        // The inverse of `epochSeconds` (civil from days).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = Int(shifted - era * 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = Int(era) * 400 + yearOfEra + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text =
            "\(year)-\(two(month))-\(two(day))T\(two(within / 3600)):\(two(within / 60 % 60)):\(two(within % 60))"
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }
}

/// Reads ASCII fields from bytes, left to right.
private struct ByteCursor<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    let bytes: Bytes
    var index: Int

    init(_ bytes: Bytes) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atEnd: Bool { index == bytes.endIndex }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int? {
        guard index < bytes.endIndex else { return nil }
        let value = Int(bytes[index]) - 48
        guard value >= 0, value <= 9 else { return nil }
        index += 1
        return value
    }

    /// Exactly `count` digits.
    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// One or more digits after a decimal point, as nanoseconds (digits past the ninth cut).
    mutating func fractionNanoseconds() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while let digit = digit() {
            if count < 9 { value = value * 10 + Int64(digit) }
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 9) { value *= 10 }
        return value
    }

    /// `+` is 1, `-` is -1.
    mutating func sign() -> Int? {
        if take(UInt8(ascii: "+")) { return 1 }
        if take(UInt8(ascii: "-")) { return -1 }
        return nil
    }

    /// `Jan` … `Dec` as 1 … 12.
    mutating func monthName() -> Int? {
        guard bytes.endIndex - index >= 3 else { return nil }
        let name = (Int(bytes[index]) << 16) | (Int(bytes[index + 1]) << 8) | Int(bytes[index + 2])
        guard let month = monthCodes.firstIndex(of: name) else { return nil }
        index += 3
        return month + 1
    }
}

/// `Jan` … `Dec`, each as its three bytes in one number.
private let monthCodes: [Int] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    .map { $0.utf8.reduce(0) { ($0 << 8) | Int($1) } }
