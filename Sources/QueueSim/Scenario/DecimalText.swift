/// How a decimal number is written for people: in the scenario's units (`ScenarioUnits`) and
/// in every report table (`ThresholdTable`), one way.
package enum DecimalText {
    /// At most `decimals` digits after the point, trailing zeros dropped: `99.5`, `99`, `12.35`.
    package static func trimmed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return "\(value)" }
        let integer = Int64(scaled)
        let whole = integer / Int64(scale)
        var fraction = decimals > 0 ? String(integer % Int64(scale)) : ""
        if decimals > 0 {
            fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
        }
        let sign = value < 0 && integer != 0 ? "-" : ""
        return sign + "\(whole)" + (fraction.isEmpty ? "" : "." + fraction)
    }
}
