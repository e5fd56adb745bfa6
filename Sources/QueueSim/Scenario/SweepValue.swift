import Foundation

/// One value of a varied key, as the scenario writes it (`"1000/min"`, `"5m"`, `"1.5"`), with
/// its size in the key's base unit (per second, seconds, or the number itself) for ordering,
/// charts and the fluid model.
package struct SweepValue: Sendable, Equatable, Hashable {
    /// The text handed to the scenario as an override, and written to sweep.csv and sweep.json.
    package var text: String
    /// Per second for rates, seconds for durations, the number for plain numbers.
    package var magnitude: Double

    package init(text: String, magnitude: Double) {
        self.text = text
        self.magnitude = magnitude
    }
}

/// The unit a value is written in: `/min`, `m`, or none. A range's values are written in the
/// unit its `from` is written in, so `{ from: 600/min, to: 3000/min, step: 300/min }` gives
/// `600/min`, `900/min`, … as a person would write them.
package struct SweepUnit: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case rate
        case duration
        case plain
    }

    package var kind: Kind
    /// What follows the number: `/min`, `/s`, `ms`, `m`, or "" for a bare number.
    package var suffix: String
    /// How many base units one of this unit is (60 for `m`, 1/60 for `/min`).
    package var scale: Double

    static let plain = SweepUnit(kind: .plain, suffix: "", scale: 1)

    static let rateUnits: [(String, Double)] = [
        ("s", 1), ("sec", 1), ("second", 1), ("min", 1.0 / 60), ("minute", 1.0 / 60), ("h", 1.0 / 3600),
        ("hour", 1.0 / 3600),
    ]
    static let durationUnits: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]

    /// Splits `text` into a number and its unit; nil when it is none of a number, a duration
    /// (`250ms`, `30s`, `5m`, `2h`) or a rate (`600/min`, `10/s`).
    package static func parse(_ text: String) -> (number: Double, unit: SweepUnit)? {
        let trimmed = String(text.trimmingSpaces)
        if let slash = trimmed.firstIndex(of: "/") {
            guard let number = ScenarioUnits.decimal(trimmed[..<slash].trimmingSpaces) else { return nil }
            let unitText = String(trimmed[trimmed.index(after: slash)...].trimmingSpaces)
            guard let scale = rateUnits.first(where: { $0.0 == unitText })?.1 else { return nil }
            return (number, SweepUnit(kind: .rate, suffix: "/" + unitText, scale: scale))
        }
        for (suffix, scale) in durationUnits where trimmed.hasSuffix(suffix) {
            guard let number = ScenarioUnits.decimal(trimmed.dropLast(suffix.count).trimmingSpaces) else {
                return nil
            }
            return (number, SweepUnit(kind: .duration, suffix: suffix, scale: scale))
        }
        guard let number = ScenarioUnits.decimal(Substring(trimmed)) else { return nil }
        return (number, .plain)
    }

    /// `number` of this unit as text: at most six decimals, no trailing zeros (`1.5m`, `900/min`).
    package func write(_ number: Double) -> String {
        SweepUnit.decimalText(number) + suffix
    }

    /// A number for files: integral values without a point, others with up to six decimals.
    package static func decimalText(_ number: Double) -> String {
        let rounded = (number * 1e6).rounded() / 1e6
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(format: "%.6f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// How a varied key's values are written: a list, or a range `from`…`to` by `step`.
package enum SweepValues: Sendable, Equatable {
    case list([String])
    case range(from: String, to: String, step: String)

    /// The most points one key may take: a sweep is a grid of runs, not a search.
    package static let mostValues = 1_000

    package enum Problem: Error, Equatable, CustomStringConvertible {
        case notAValue(String)
        case mixedUnits(String, String)
        case stepNotPositive(String)
        case toBeforeFrom(from: String, to: String)
        case tooManyValues(Int)
        case empty
        case repeated(String)

        package var description: String {
            switch self {
            case .notAValue(let text):
                "`\(text)` is not a number, a duration (250ms, 30s, 5m, 2h) or a rate (600/min, 10/s)"
            case .mixedUnits(let first, let second):
                "`\(first)` and `\(second)` are not in the same kind of unit (a rate, a duration or a plain number)"
            case .stepNotPositive(let step): "the step must be more than 0, found `\(step)`"
            case .toBeforeFrom(let from, let to): "`to` (\(to)) is below `from` (\(from))"
            case .tooManyValues(let count):
                "this gives \(count) values; a key takes at most \(SweepValues.mostValues) (use a larger step)"
            case .empty: "the list of values is empty"
            case .repeated(let text): "the value `\(text)` is listed twice"
            }
        }
    }

    /// The values in order: a list as written, a range from `from` up to `to` (included when a
    /// step lands on it, within a millionth of a step).
    package func values() -> Result<[SweepValue], Problem> {
        switch self {
        case .list(let texts):
            guard !texts.isEmpty else { return .failure(.empty) }
            var values: [SweepValue] = []
            var seen: Set<String> = []
            for text in texts {
                let trimmed = String(text.trimmingSpaces)
                guard let (number, unit) = SweepUnit.parse(trimmed) else { return .failure(.notAValue(trimmed)) }
                guard seen.insert(trimmed).inserted else { return .failure(.repeated(trimmed)) }
                values.append(SweepValue(text: trimmed, magnitude: number * unit.scale))
            }
            return .success(values)
        case .range(let fromText, let toText, let stepText):
            var parsed: [(number: Double, unit: SweepUnit, text: String)] = []
            for text in [fromText, toText, stepText] {
                let trimmed = String(text.trimmingSpaces)
                guard let (number, unit) = SweepUnit.parse(trimmed) else { return .failure(.notAValue(trimmed)) }
                parsed.append((number, unit, trimmed))
            }
            // A bare number is in the base unit (per second, seconds) and mixes with either kind;
            // a rate and a duration do not mix.
            let withUnits = parsed.filter { $0.unit.kind != .plain }
            if let first = withUnits.first, let other = withUnits.first(where: { $0.unit.kind != first.unit.kind }) {
                return .failure(.mixedUnits(first.text, other.text))
            }
            let unit = parsed[0].unit.kind != .plain ? parsed[0].unit : (withUnits.first?.unit ?? .plain)
            let base = parsed.map { $0.number * $0.unit.scale }
            let (from, to, step) = (base[0] / unit.scale, base[1] / unit.scale, base[2] / unit.scale)
            guard step > 0 else { return .failure(.stepNotPositive(stepText)) }
            guard to >= from else { return .failure(.toBeforeFrom(from: fromText, to: toText)) }
            let steps = ((to - from) / step + 1e-6).rounded(.down)
            guard steps < Double(Self.mostValues) else { return .failure(.tooManyValues(Int(min(steps, 1e9)) + 1)) }
            return .success(
                (0...Int(steps)).map { index in
                    let number = from + Double(index) * step
                    let text = unit.write(number)
                    return SweepValue(
                        text: text, magnitude: (Double(SweepUnit.decimalText(number)) ?? number) * unit.scale)
                })
        }
    }

    /// `--vary`'s text after the `=`: `600/min:3000/min:300/min` (from:to:step) or `1,1.5,2`.
    package static func parseArgument(_ text: String) -> SweepValues? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3 { return .range(from: parts[0], to: parts[1], step: parts[2]) }
        guard parts.count == 1 else { return nil }
        return .list(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }
}
