/// The units of scenario values (docs/contract.md): durations (`250ms`, `1.5s`, `30s`,
/// `5m`, `2h`, or a bare number of seconds), rates (per second, or `600/min`) and shares
/// (`0.5%` or a fraction such as `0.005`). Each parser returns nil for text it cannot read;
/// range checks (negative, zero) belong to the validator, which knows what the key needs.
package enum ScenarioUnits {
    /// The longest duration accepted: a hundred years is longer than any rehearsal.
    static let longestSeconds = 100.0 * 365 * 24 * 3600

    package static func duration(_ text: String) -> Duration? {
        let trimmed = text.trimmingSpaces
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(trimmed)
        var scale = 1.0
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = decimal(number.trimmingSpaces) else { return nil }
        let seconds = value * scale
        guard abs(seconds) <= longestSeconds else { return nil }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// Per second.
    package static func rate(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces
        guard let slash = trimmed.firstIndex(of: "/") else { return decimal(Substring(trimmed)) }
        guard let value = decimal(trimmed[..<slash].trimmingSpaces) else { return nil }
        switch trimmed[trimmed.index(after: slash)...].trimmingSpaces {
        case "s", "sec", "second": return value
        case "min", "minute": return value / 60
        case "h", "hour": return value / 3600
        default: return nil
        }
    }

    /// A fraction: `50%` is 0.5, `0.5` is 0.5. Values past 100% are the validator's to refuse.
    package static func fraction(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces
        if trimmed.hasSuffix("%") {
            return decimal(trimmed.dropLast().trimmingSpaces).map { $0 / 100 }
        }
        return decimal(Substring(trimmed))
    }

    /// A plain decimal number: digits with an optional sign and fraction (no exponents, no
    /// `inf` or `nan`, which `Double(_:)` would accept).
    static func decimal(_ text: Substring) -> Double? {
        var digits = text
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.first != ".", digits.last != ".",
            digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }),
            digits.filter({ $0 == "." }).count <= 1
        else { return nil }
        return Double(String(text.filter { $0 != "_" }))
    }

    /// A count or rate for people: `3,000`, `180,000`, `0.5`, `1,234.57` (at most two decimals).
    package static func grouped(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "\(value)" }
        let whole = Int64(abs(rounded).rounded(.down))
        var digits = String(whole)
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(digits, at: 0)
        let cents = Int64(((abs(rounded) - Double(whole)) * 100).rounded())
        var fraction = cents == 0 ? "" : (cents < 10 ? ".0\(cents)" : ".\(cents)")
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (rounded < 0 ? "-" : "") + groups.joined(separator: ",") + fraction
    }

    /// A duration for people, in the one form every output uses (a measured figure adds its
    /// zero seconds, the reports' `formatMilliseconds`): `250ms`, `1.5s`, `30s`, `5m`, `2h`,
    /// and a duration that is no whole unit in parts, `19m 7s`, `1h 5m`, `1h 0m 7s`, never
    /// `1147s` or `19m07s`.
    package static func describe(_ duration: Duration) -> String {
        let signed = duration.wholeMilliseconds
        let sign = signed < 0 ? "-" : ""
        let milliseconds = signed.magnitude
        if milliseconds == 0 { return "0s" }
        if milliseconds < 1000 { return "\(sign)\(milliseconds)ms" }
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds % 3_600_000 / 60_000
        let rest = milliseconds % 60_000
        let seconds =
            rest % 1000 == 0 ? "\(rest / 1000)s" : DecimalText.trimmed(Double(rest) / 1000, decimals: 3) + "s"
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours)h") }
        if minutes > 0 || (hours > 0 && rest > 0) { parts.append("\(minutes)m") }
        if rest > 0 || parts.isEmpty { parts.append(seconds) }
        return sign + parts.joined(separator: " ")
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return text[first...last]
    }
}
