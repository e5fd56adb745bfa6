import Foundation

/// Bisection between a value of a key that fails a goal and one that meets every goal, on
/// the key's size in its base unit (per second, seconds, the number itself). The sweep's grid
/// says only that the answer lies between two grid values; bisection narrows that to a
/// bracket within the precision a launch team asks for, with a probe count known beforehand:
/// ⌈log2(width / precision)⌉, plus one where rounding to the key's natural step loses a halving.
///
/// It assumes what the answer's wording already assumes between two neighbouring grid values:
/// that passing is monotone there. A probe that contradicts it still narrows the bracket
/// (the bracket's ends are always a failing and a passing value actually run).
package enum SweepBisection {
    /// One probe: a value tried and whether it met every goal in every seed.
    package struct Probe: Sendable, Equatable {
        package var value: Double
        package var passed: Bool
    }

    package struct Outcome: Sendable, Equatable {
        /// The last value that failed a goal (the bracket's outer end).
        package var failing: Double
        /// The first value that met every goal.
        package var passing: Double
        package var probes: [Probe]
        /// A probe could not be judged (the sweep was interrupted): the bracket is where it got.
        package var stopped: Bool

        package var width: Double { abs(passing - failing) }
    }

    /// The most probes a bracket of `width` needs to reach `precision`.
    package static func mostProbes(width: Double, precision: Double) -> Int {
        guard width > precision, precision > 0 else { return 0 }
        return Int(log2(width / precision).rounded(.up)) + 1
    }

    /// Halves the bracket until it is within `precision`. `step` (0: none) is the key's natural
    /// step: each probe is rounded to a multiple of it, and bisection ends when no multiple lies
    /// strictly inside the bracket. `probe` answers whether a value meets every goal, or nil
    /// when it could not be run to the end.
    package static func refine(
        failing: Double, passing: Double, precision: Double, step: Double = 0,
        probe: (Double) throws -> Bool?
    ) rethrows -> Outcome {
        var outcome = Outcome(failing: failing, passing: passing, probes: [], stopped: false)
        let limit = mostProbes(width: outcome.width, precision: precision)
        while outcome.width > precision * (1 + 1e-9), outcome.probes.count < limit {
            var middle = (outcome.failing + outcome.passing) / 2
            if step > 0 { middle = (middle / step).rounded() * step }
            let low = min(outcome.failing, outcome.passing)
            let high = max(outcome.failing, outcome.passing)
            guard middle > low + 1e-12, middle < high - 1e-12 else { break }
            guard let passed = try probe(middle) else {
                outcome.stopped = true
                break
            }
            outcome.probes.append(Probe(value: middle, passed: passed))
            if passed { outcome.passing = middle } else { outcome.failing = middle }
        }
        return outcome
    }
}

/// How finely the sweep brackets its answer: `--precision` (a value in the key's units, or a
/// percentage of the answer), by default 1 % of the answer but never finer than the key's
/// natural step (1/min for a rate, 1 s for a duration, 1 for a key whose values are whole
/// numbers: nobody sets an outflow of 9,612.4/min).
package struct SweepPrecision: Sendable, Equatable {
    package enum Amount: Sendable, Equatable {
        /// In the key's base unit.
        case absolute(Double)
        /// A fraction of the answer's value.
        case relative(Double)
    }

    package var amount: Amount
    /// As the user wrote it (`100/min`, `1%`), for the sentence and sweep.json.
    package var text: String

    /// Why `--precision`'s value does not suit the key.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var message: String
        package init(_ message: String) { self.message = message }
        package var description: String { message }
    }

    package static let standard = SweepPrecision(amount: .relative(0.01), text: "1%")

    package init(amount: Amount, text: String) {
        self.amount = amount
        self.text = text
    }

    /// `--precision`'s value for a key whose grid values are `values`: a percentage (`2%`), or
    /// a value in the key's kind of unit (a bare number only for a key written bare).
    package static func parse(_ text: String, values: [SweepValue]) -> Result<SweepPrecision, Problem> {
        let trimmed = String(text.trimmingSpaces)
        if trimmed.hasSuffix("%") {
            guard let number = ScenarioUnits.decimal(trimmed.dropLast().trimmingSpaces), number > 0, number < 100
            else { return .failure(Problem("a percentage must be more than 0% and less than 100%, e.g. 1%")) }
            return .success(SweepPrecision(amount: .relative(number / 100), text: trimmed))
        }
        guard let (number, unit) = SweepUnit.parse(trimmed) else {
            return .failure(
                Problem("`\(trimmed)` is not a percentage (1%) or a value in the key's units (100/min, 5s)"))
        }
        guard number > 0 else { return .failure(Problem("the precision must be more than 0, found `\(trimmed)`")) }
        let keyKind = values.compactMap { SweepUnit.parse($0.text)?.unit.kind }.first { $0 != .plain } ?? .plain
        if keyKind != .plain, unit.kind != keyKind {
            let example = keyKind == .rate ? "100/min" : "5s"
            return .failure(
                Problem(
                    "`\(trimmed)` is not in the key's kind of unit: give it as its values are written, e.g. \(example), or as a percentage"
                ))
        }
        return .success(SweepPrecision(amount: .absolute(number * unit.scale), text: trimmed))
    }

    /// The precision in the key's base unit at an answer of size `answer`.
    package func base(at answer: Double, step: Double) -> Double {
        switch amount {
        case .absolute(let size): size
        case .relative(let share): max(abs(answer) * share, step)
        }
    }

    /// The key's natural step in its base unit (0: none): 1/min for a rate, 1 s for a duration,
    /// 1 for a key whose values are all whole bare numbers.
    package static func naturalStep(of values: [SweepValue]) -> Double {
        let parsed = values.compactMap { SweepUnit.parse($0.text) }
        if let unit = parsed.first(where: { $0.unit.kind != .plain })?.unit {
            return unit.kind == .rate ? 1.0 / 60 : 1
        }
        let whole = !parsed.isEmpty && parsed.allSatisfy { $0.number == $0.number.rounded() }
        return whole ? 1 : 0
    }

    /// `size` (base unit) written as the key's values are (`9650/min`), in a finer unit of the
    /// same kind where that unit would need decimals (`571s` rather than `9.516667m`).
    package static func value(_ size: Double, like example: SweepValue) -> SweepValue {
        guard let unit = SweepUnit.parse(example.text)?.unit, unit.kind != .plain else {
            return SweepValue(text: SweepUnit.decimalText(size), magnitude: size)
        }
        let finer: [SweepUnit] =
            unit.kind == .rate
            ? [unit, SweepUnit(kind: .rate, suffix: "/min", scale: 1.0 / 60)]
            : [
                unit, SweepUnit(kind: .duration, suffix: "s", scale: 1),
                SweepUnit(kind: .duration, suffix: "ms", scale: 0.001),
            ]
        let chosen =
            finer.first { candidate in
                let number = size / candidate.scale
                return abs(number - number.rounded()) < 1e-6
            } ?? unit
        return SweepValue(text: chosen.write(size / chosen.scale), magnitude: size)
    }
}
