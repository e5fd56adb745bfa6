/// `${VAR}` and `${VAR:-default}` inside scalars, expanded from the environment the reader was
/// given (the process environment by default), so secrets stay out of scenario files.
enum YamlEnvironment {
    /// Expands every reference in `text`. A `$` that does not start `${` is kept as it is.
    static func expand(_ text: String, environment: [String: String]) throws(YamlEnvironmentError) -> String {
        guard mayReference(text) else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: "${") {
            result += rest[..<start.lowerBound]
            let body = rest[start.upperBound...]
            guard let close = body.firstIndex(of: "}") else {
                throw .unclosed(String(rest[start.lowerBound...]))
            }
            let reference = body[..<close]
            let name: Substring
            let fallback: Substring?
            if let separator = reference.firstRange(of: ":-") {
                name = reference[..<separator.lowerBound]
                fallback = reference[separator.upperBound...]
            } else {
                name = reference
                fallback = nil
            }
            guard isVariableName(name) else { throw .badName(String(reference)) }
            if let value = environment[String(name)], !value.isEmpty || fallback == nil {
                result += value
            } else if let fallback {
                result += fallback
            } else {
                throw .unset(String(name))
            }
            rest = body[body.index(after: close)...]
        }
        result += rest
        return result
    }

    /// Whether `text` holds `${`, by its bytes: every scalar of a scenario passes here, and
    /// `String.contains` compared them as characters (a scenario of 2,000 groups, issue 51).
    private static func mayReference(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "{"), previous == UInt8(ascii: "$") { return true }
            previous = byte
        }
        return false
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}

enum YamlEnvironmentError: Error {
    case unset(String)
    case unclosed(String)
    case badName(String)

    var message: String {
        switch self {
        case .unset(let name):
            return "the environment variable \(name) is not set; set it or give a default with ${\(name):-default}"
        case .unclosed(let text):
            return
                "`\(text.prefix(30))` opens an environment reference that is never closed; expected ${NAME} or ${NAME:-default}"
        case .badName(let name):
            return
                "`${\(name)}` is not an environment reference; expected ${NAME} or ${NAME:-default} with NAME made of letters, digits and _"
        }
    }
}
