/// The YAML 1.2 core-schema tags a scenario may carry (`!!str`, `!!int` …), and the checks that
/// keep a tag from changing what a value means without a word.
///
/// Before these checks every tag but `!!str` was dropped: `secretKey: !!binary aGk=` signed
/// with the text `aGk=`, and `name: !!int 5` read as text. A scenario has no use for tags, so
/// the rule is: a core-schema tag is accepted only where it agrees with its own value (`!!int`
/// on a whole number, `!!map` on a mapping) and with what the key reads (checked by the
/// decoder); any other tag (`!!binary`, `!!timestamp`, `!!set`, a local `!foo`) is refused
/// everywhere, since reading its value as plain text would be a guess.
package enum YamlTag: String, Sendable, Equatable {
    case str, int, float, bool, null, map, seq

    /// `!!int`, as written in files and messages.
    package var written: String { "!!\(rawValue)" }

    /// What the tag says the value is, for messages.
    var meaning: String {
        switch self {
        case .str: "text"
        case .int: "a whole number"
        case .float: "a floating-point number"
        case .bool: "true or false"
        case .null: "nothing (null)"
        case .map: "a mapping"
        case .seq: "a list"
        }
    }

    static let corePrefix = "tag:yaml.org,2002:"

    /// The tag of a node as libyaml resolved it (`tag:yaml.org,2002:int`, `!foo`, the
    /// non-specific `!`), or nil for none. Throws for a tag outside the core schema.
    static func read(_ resolved: String?, isScalar: Bool, isKey: Bool, at mark: YamlMark) throws(YamlError)
        -> YamlTag?
    {
        guard let resolved else { return nil }
        // `! 12` is YAML's "not a plain scalar": text for a scalar, nothing for a collection.
        if resolved == "!" { return isScalar ? .str : nil }
        let shown = show(resolved)
        guard resolved.hasPrefix(corePrefix), let tag = YamlTag(rawValue: String(resolved.dropFirst(corePrefix.count)))
        else {
            var message =
                "unsupported tag `\(shown)`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag"
            if shown.lowercased() == "!env" {
                message += " (environment variables are written ${NAME} or ${NAME:-default})"
            }
            throw YamlError(message, at: mark)
        }
        if isKey, tag != .str {
            throw YamlError("a mapping key is a plain name; remove the tag `\(shown)`", at: mark)
        }
        return tag
    }

    /// `!!int` for core-schema tags, `!foo` for local ones, `!<…>` for the rest.
    static func show(_ resolved: String) -> String {
        if resolved.hasPrefix(corePrefix) { return "!!" + resolved.dropFirst(corePrefix.count) }
        if resolved.hasPrefix("!") { return resolved }
        return "!<\(resolved)>"
    }

    /// Checks a tagged scalar's text against its tag and returns the style the scalar is read
    /// with: a tag decides how a scalar resolves, so `!!int "42"` is the number 42 (plain) and
    /// `!!str 42` the text "42" (quoted).
    func scalarStyle(for text: String, written style: YamlScalarStyle, at mark: YamlMark) throws(YamlError)
        -> YamlScalarStyle
    {
        let fits: Bool
        let example: String
        switch self {
        case .str: return style == .plain ? .doubleQuoted : style
        case .int:
            (fits, example) = (Self.isWholeNumber(text), "a whole number such as 42")
        case .float:
            (fits, example) = (Self.isDecimal(text, exponent: true), "a number such as 1.5")
        case .bool:
            (fits, example) = (["true", "True", "TRUE", "false", "False", "FALSE"].contains(text), "true or false")
        case .null:
            (fits, example) = (["", "~", "null", "Null", "NULL"].contains(text), "nothing, ~ or null")
        case .map, .seq:
            let found = YamlNode(.scalar(text, style), at: mark).kindDescription
            throw YamlError("the tag `\(written)` marks \(meaning), but this value is \(found)", at: mark)
        }
        guard fits else {
            let found = YamlNode(.scalar(text, style), at: mark).kindDescription
            throw YamlError("the tag `\(written)` needs \(example), found \(found)", at: mark)
        }
        return .plain
    }

    /// Checks a tagged list or mapping against its tag.
    func checkCollection(isMapping: Bool, at mark: YamlMark) throws(YamlError) {
        if self == (isMapping ? .map : .seq) { return }
        throw YamlError(
            "the tag `\(written)` marks \(meaning), but this value is \(isMapping ? "a mapping" : "a list")", at: mark)
    }

    /// Digits with an optional sign (what the decoder reads as a whole number).
    static func isWholeNumber(_ text: String) -> Bool {
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A decimal number: optional sign, digits (and `_`) with at most one `.`, and, when
    /// `exponent` allows it, `e` and a whole number.
    static func isDecimal(_ text: String, exponent: Bool) -> Bool {
        var mantissa = Substring(text)
        if exponent, let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard isWholeNumber(String(text[text.index(after: e)...])) else { return false }
            mantissa = text[..<e]
        }
        if mantissa.first == "-" || mantissa.first == "+" { mantissa = mantissa.dropFirst() }
        return mantissa.contains(where: { $0.isASCII && $0.isNumber })
            && mantissa.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }
            && mantissa.filter { $0 == "." }.count <= 1
    }
}

/// What a decoder reads at a node, so a core-schema tag can be held to it.
enum YamlReading {
    case text, wholeNumber, number, bool
    /// A `YamlNode` the scenario reads by its shape: a duration, rate or share (a number, or a
    /// text with a unit), a threshold line, `version`.
    case shaped

    var words: String {
        switch self {
        case .text: "text"
        case .wholeNumber: "a whole number"
        case .number: "a number"
        case .bool: "true or false"
        case .shaped: "a number"
        }
    }
}

extension YamlNodeDecoder {
    /// Refuses a tag that contradicts what is read here (`seed: !!str 42`, `name: !!int 5`).
    /// `!!null` is left to the null handling every key already has.
    func checkTag(reads reading: YamlReading) throws(YamlError) {
        guard let tag = node.tag, tag != .null else { return }
        let agrees: Bool
        switch reading {
        case .text: agrees = tag == .str
        case .wholeNumber: agrees = tag == .int
        case .number: agrees = tag == .int || tag == .float
        case .bool: agrees = tag == .bool
        case .shaped:
            // Quantities accept text (`30s`, `600/min`), but `rate: !!str 50` asks for the text
            // "50" where the scenario reads a bare number as a number. (Plain quotes, `"50"`,
            // stay accepted: people quote values casually; a tag is a deliberate claim.)
            guard tag == .str, case .scalar(let text, _) = node.content else { return }
            agrees = !YamlTag.isDecimal(text, exponent: false)
        }
        guard !agrees else { return }
        let problem = YamlError(
            "the tag `\(tag.written)` says \(tag.meaning), but \(pathDescription) reads \(reading.words) here; remove the tag",
            at: node.mark)
        // A shaped value is recorded and kept: dropping it would add "missing `rate`" to the
        // report; the problem alone keeps the scenario from loading.
        guard reading == .shaped else { throw problem }
        state.record(problem, at: node.mark)
    }
}
