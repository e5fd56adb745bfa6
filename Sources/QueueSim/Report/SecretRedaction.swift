/// Removes credential values from free text before it reaches a report.
///
/// The runner should never put a token into an error message, but error texts can quote URLs
/// (a redirect `Location`, a target URL) that carry `queueittoken=…` or `enqueuetoken=…`.
/// Reports are shared and archived, so the recorder scrubs them as a last line of defence.
enum SecretRedaction {
    /// Parameter names whose values are credentials (compared case-insensitively).
    static let secretParameters = ["queueittoken", "enqueuetoken", "enqueuekey"]

    static let replacement = "<redacted>"

    /// Replaces the value after `name=` (up to `&`, whitespace, a quote or the end) for every
    /// secret parameter name.
    static func redact(_ text: String) -> String {
        let lowered = text.lowercased()
        guard secretParameters.contains(where: { lowered.contains($0 + "=") }) else { return text }

        var output = ""
        var characters = Substring(text)
        while !characters.isEmpty {
            if let name = secretParameters.first(where: { startsWithParameter(characters, $0) }) {
                let nameLength = name.count + 1
                output += characters.prefix(nameLength)
                characters = characters.dropFirst(nameLength)
                let valueLength = characters.prefix(while: { !endsValue($0) }).count
                if valueLength > 0 { output += replacement }
                characters = characters.dropFirst(valueLength)
            } else {
                output.append(characters.removeFirst())
            }
        }
        return output
    }

    private static func startsWithParameter(_ text: Substring, _ name: String) -> Bool {
        let candidate = text.prefix(name.count + 1)
        return candidate.count == name.count + 1 && candidate.lowercased() == name + "="
    }

    private static func endsValue(_ character: Character) -> Bool {
        character == "&" || character == "\"" || character == "'" || character == ","
            || character == ";" || character.isWhitespace
    }
}
