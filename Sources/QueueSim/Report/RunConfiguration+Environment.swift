import Foundation
import QueueClientCore

/// The `${NAME}` and `${NAME:-default}` references of a scenario file, read from its text: the
/// loaded scenario holds only the expanded values, and a reader of a report wants to know
/// which of them came from the environment of the machine that ran it.
enum EnvironmentReferences {
    static func find(inScenarioAt path: String, environment: [String: String]) -> [RunConfiguration.EnvironmentEntry] {
        guard !path.isEmpty, let bytes = try? RegularFileReader.contents(path: path, limit: 16 << 20) else {
            return []
        }
        return find(in: String(decoding: bytes, as: UTF8.self), environment: environment)
    }

    static func find(in text: String, environment: [String: String]) -> [RunConfiguration.EnvironmentEntry] {
        var entries: [RunConfiguration.EnvironmentEntry] = []
        // Lines split on the newline byte (a CRLF file's lines too, which a split on the
        // character "\n" does not split: "\r\n" is one character). Most lines hold no
        // reference: a byte search passes them by, where the searches below go character by
        // character (a scenario of 2,000 group lines spent some 4 ms here, issue 51).
        for (offset, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            guard bytes.contains(UInt8(ascii: "$")) else { continue }
            let line = Substring(bytes)
            // A comment's references are not expanded.
            let content = line.firstIndex(of: "#").map { line[..<$0] } ?? line[...]
            var rest = content[...]
            while let open = rest.range(of: "${") {
                guard let close = rest[open.upperBound...].firstIndex(of: "}") else { break }
                let inside = rest[open.upperBound..<close]
                let name = inside.range(of: ":-").map { inside[..<$0.lowerBound] } ?? inside
                let hasDefault = inside.contains(":-")
                let value = environment[String(name)]
                let fromEnvironment = value.map { !$0.isEmpty || !hasDefault } ?? false
                let key = content.split(separator: ":", maxSplits: 1).first.map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: " -\t\"'"))
                }
                entries.append(
                    .init(
                        variable: String(name), key: key ?? "", line: offset + 1,
                        from: fromEnvironment ? "environment" : "default"))
                rest = rest[rest.index(after: close)...]
            }
        }
        return entries
    }
}
