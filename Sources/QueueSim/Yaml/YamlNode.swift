/// A position in a YAML file, 1-based, counted in characters (as libyaml counts them).
public struct YamlMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: YamlMark, rhs: YamlMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// How a scalar was written; plain scalars are the only ones that can mean null, a number or a
/// boolean (YAML 1.2 core schema), quoted ones are always strings.
public enum YamlScalarStyle: Sendable, Equatable {
    case plain
    case singleQuoted
    case doubleQuoted
    case literal
    case folded
}

/// One node of a parsed YAML document. Aliases are resolved while building the tree, so an
/// alias shows up as a copy of its anchored node (with the anchor's positions).
public struct YamlNode: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case scalar(String, YamlScalarStyle)
        case sequence([YamlNode])
        case mapping([YamlPair])
    }

    public var content: Content
    /// Where the node starts.
    public var mark: YamlMark

    public init(_ content: Content, at mark: YamlMark) {
        self.content = content
        self.mark = mark
    }

    /// The scalar's text, nil for collections.
    public var scalarText: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// `null`, `Null`, `NULL`, `~` or nothing at all, written plain.
    public var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// The value for a key of a mapping node (nil when absent or not a mapping).
    public subscript(key: String) -> YamlNode? {
        guard case .mapping(let pairs) = content else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }

    /// Words for error messages: "a mapping", "a sequence", "the string \"abc\"".
    public var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let text, let style):
            if isNull { return "nothing (null)" }
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return style == .plain ? "`\(shown)`" : "the string \"\(shown)\""
        }
    }
}

public struct YamlPair: Sendable, Equatable {
    public var key: YamlNode
    public var value: YamlNode

    public init(key: YamlNode, value: YamlNode) {
        self.key = key
        self.value = value
    }
}

/// A problem found while reading YAML, at a position when one is known.
public struct YamlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var mark: YamlMark?
    public var message: String

    public init(_ message: String, at mark: YamlMark?) {
        self.message = message
        self.mark = mark
    }

    public var description: String {
        if let mark { return "\(mark): \(message)" }
        return message
    }
}

extension YamlError {
    /// An error thrown while reading or decoding, in words: our own value types throw
    /// sentences; anything else (a `DecodingError`) would print as a dump, so only its type is
    /// named. Not `ErrorWording` from the client core: fuzz/run-reader-fuzz.sh compiles this
    /// folder alone.
    init(wording error: any Error, at mark: YamlMark?) {
        let words =
            (error is DecodingError ? nil : (error as? any CustomStringConvertible)?.description)
            ?? "an unexpected error (\(type(of: error)))"
        self.init(words, at: mark)
    }
}
