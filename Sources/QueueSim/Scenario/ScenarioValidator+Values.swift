/// Reading single values with units and choices, each with a message that says what was expected.
extension ScenarioValidator {
    static let durationHelp = "a duration such as 250ms, 1.5s, 30s, 5m or 2h (a bare number means seconds)"
    static let rateHelp = "a rate such as 10 (per second) or 600/min"
    static let fractionHelp = "a share such as 50% or 0.5"

    /// The scalar's text, or a problem saying what was expected instead.
    mutating func scalarText(_ node: YamlNode, key: String, expected: String) -> String? {
        guard case .scalar(let text, _) = node.content, !node.isNull else {
            fail("`\(key)` must be \(expected), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        return text
    }

    mutating func optionalDuration(_ node: YamlNode?, key: String, allowZero: Bool) -> Duration? {
        guard let node, !node.isNull, let text = scalarText(node, key: key, expected: Self.durationHelp) else {
            return nil
        }
        guard let value = ScenarioUnits.duration(text) else {
            fail("`\(key)` must be \(Self.durationHelp), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        if value < .zero {
            fail("`\(key)` must not be negative, found \(text)", at: node.mark)
            return nil
        }
        if value == .zero, !allowZero {
            fail("`\(key)` must be longer than 0, found \(text)", at: node.mark)
            return nil
        }
        if value > ScenarioLimits.longestDuration {
            fail("`\(key)` must be at most \(ScenarioLimits.longestDurationText), found \(text)", at: node.mark)
            return nil
        }
        return value
    }

    mutating func duration(_ node: YamlNode?, key: String, default fallback: Duration, allowZero: Bool = false)
        -> Duration
    {
        optionalDuration(node, key: key, allowZero: allowZero) ?? fallback
    }

    /// Per second; `allowZero` for ramps that start from nothing.
    mutating func rate(_ node: YamlNode?, key: String, allowZero: Bool = false) -> Double? {
        guard let node, let text = scalarText(node, key: key, expected: Self.rateHelp) else { return nil }
        guard let value = ScenarioUnits.rate(text) else {
            fail("`\(key)` must be \(Self.rateHelp), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        if value < 0 || (value == 0 && !allowZero) {
            fail("`\(key)` must be more than 0, found \(text)", at: node.mark)
            return nil
        }
        if value > ScenarioLimits.highestRate {
            fail("`\(key)` must be at most \(ScenarioLimits.highestRateText), found \(text)", at: node.mark)
            return nil
        }
        return value
    }

    /// A fraction in 0...1 (`allowZero` false: in (0, 1]).
    mutating func fraction(_ node: YamlNode?, key: String, allowZero: Bool = false) -> Double? {
        guard let node, let text = scalarText(node, key: key, expected: Self.fractionHelp) else { return nil }
        guard let value = ScenarioUnits.fraction(text) else {
            fail("`\(key)` must be \(Self.fractionHelp), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        if value < 0 || value > 1 || (value == 0 && !allowZero) {
            let range = allowZero ? "from 0% to 100%" : "more than 0% and at most 100%"
            fail(
                "`\(key)` must be \(range) (a fraction such as 0.5 or a percentage such as 50%), found \(text)",
                at: node.mark)
            return nil
        }
        return value
    }

    /// One of an enum's words, with "did you mean" for a near miss.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ raw: Positioned<String>?, key: String, default fallback: Choice
    ) -> Choice where Choice.RawValue == String {
        guard let raw else { return fallback }
        if let value = Choice(rawValue: raw.value) { return value }
        let words = Choice.allCases.map(\.rawValue)
        var message = "`\(key)` must be one of \(words.joined(separator: ", ")), found `\(raw.value)`"
        if let suggestion = YamlKnownKeys.closest(to: raw.value, among: words) {
            message += "; did you mean `\(suggestion)`?"
        }
        fail(message, at: raw.mark)
        return fallback
    }

    mutating func nonEmpty(_ raw: Positioned<String>, key: String) -> String {
        if raw.value.trimmingSpaces.isEmpty { fail("`\(key)` must not be empty", at: raw.mark) }
        return raw.value
    }
}
