/// A position in a YAML file, 1-based, counted in characters (as libyaml counts them).
package struct YamlMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    /// Which text the position is in: 0 for the scenario file, n for the n-th scenario override
    /// (`--set KEY=VALUE`, whose text is one line of its own), so a problem in a value given on
    /// the command line is not reported at a place in the file that does not hold it.
    package var source: Int

    package init(line: Int, column: Int, source: Int = 0) {
        self.line = line
        self.column = column
        self.source = source
    }

    /// The file's positions first, then each override's in order.
    package static func < (lhs: YamlMark, rhs: YamlMark) -> Bool {
        (lhs.source, lhs.line, lhs.column) < (rhs.source, rhs.line, rhs.column)
    }

    package var description: String { "\(line):\(column)" }
}

/// How a scalar was written; plain scalars are the only ones that can mean null, a number or a
/// boolean (YAML 1.2 core schema), quoted ones are always strings.
package enum YamlScalarStyle: Sendable, Equatable {
    case plain
    case singleQuoted
    case doubleQuoted
    case literal
    case folded
}

/// One node of a parsed YAML document. Aliases are resolved while building the tree, so an
/// alias shows up as a copy of its anchored node (with the anchor's positions).
package struct YamlNode: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        case scalar(String, YamlScalarStyle)
        case sequence([YamlNode])
        case mapping([YamlPair])
    }

    package var content: Content
    /// Where the node starts (at its tag or anchor, when it has one).
    package var mark: YamlMark
    /// The core-schema tag written on the node, if any; the reader refuses every other tag.
    package var tag: YamlTag?

    package init(_ content: Content, at mark: YamlMark, tag: YamlTag? = nil) {
        self.content = content
        self.mark = mark
        self.tag = tag
    }

    /// The scalar's text, nil for collections.
    package var scalarText: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// `null`, `Null`, `NULL`, `~` or nothing at all, written plain.
    package var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// The value for a key of a mapping node (nil when absent or not a mapping).
    package subscript(key: String) -> YamlNode? {
        guard case .mapping(let pairs) = content else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }

    /// Words for error messages: "a mapping", "a sequence", "the string \"abc\"".
    package var kindDescription: String {
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

package struct YamlPair: Sendable, Equatable {
    package var key: YamlNode
    package var value: YamlNode

    package init(key: YamlNode, value: YamlNode) {
        self.key = key
        self.value = value
    }
}

/// A problem found while reading YAML, at a position when one is known.
package struct YamlError: Error, Sendable, Equatable, CustomStringConvertible {
    package var mark: YamlMark?
    package var message: String

    package init(_ message: String, at mark: YamlMark?) {
        self.message = Self.oneLine(message)
        self.mark = mark
    }

    /// A message is printed as one line, `FILE:LINE:COLUMN: message`, and scripts split on
    /// lines. Values echoed from the file (a quoted `"a\nb"`, a key, a CSV header) may hold line
    /// breaks, other control characters or bidi overrides that would break or visually reorder
    /// that line, so those are shown escaped (`\n`, `\u{202E}`). U+200D stays: it joins emoji.
    static func oneLine(_ text: String) -> String {
        func escaped(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: return true
            case .format: return scalar != "\u{200D}"
            default: return false
            }
        }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard escaped(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    package var description: String {
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
        // Every error has a description (the cast to CustomStringConvertible always succeeded);
        // a DecodingError's is not for people.
        let words = error is DecodingError ? "an unexpected error (\(type(of: error)))" : String(describing: error)
        self.init(words, at: mark)
    }
}
