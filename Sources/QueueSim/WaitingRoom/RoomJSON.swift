import QueueClientCore

/// A tiny JSON object writer: the room's bodies have a fixed key order (stable bytes for
/// deterministic runs) and are written on the hot path, so no `JSONEncoder`.
struct RoomJSON {
    enum Value {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case null
    }

    static func object(_ members: [(String, Value)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(UInt8(ascii: "{"))
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch value {
            case .string(let text): appendString(text, to: &out)
            case .int(let number): out.append(contentsOf: String(number).utf8)
            case .double(let number): out.append(contentsOf: formatted(number).utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .null: out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"error": message}`: the shape the mobile SDK shows for a 4xx.
    static func error(_ message: String) -> [UInt8] { object([("error", .string(message))]) }

    /// Three decimals at most, no exponent: stable text for seconds.
    private static func formatted(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        let thousandths = (number * 1000).rounded()
        let whole = Int64(thousandths / 1000)
        let fraction = Int64(abs(thousandths.truncatingRemainder(dividingBy: 1000)))
        if fraction == 0 { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return (number < 0 && whole == 0 ? "-" : "") + "\(whole).\(digits)"
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        JSONText.appendQuoted(text, to: &out)
    }

}
