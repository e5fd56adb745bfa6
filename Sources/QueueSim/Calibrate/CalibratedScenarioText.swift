import Foundation

/// The scenario with its fitted values, made by editing the original text in place, so the
/// comments and layout survive: a value the file writes is replaced where it stands; a key it
/// does not write (`noShow`, say) is added to its group, beside the group's `name`, in the
/// group's own style (`{ noShow: 4%, name: app, … }` or a line of its own).
package enum CalibratedScenarioText {
    package struct Problem: Error, CustomStringConvertible {
        package var description: String
    }

    /// `values`: scenario path (`visitors.app.patience.mean`) → the text to write.
    package static func edit(_ text: String, values: [(key: String, text: String)]) throws(Problem) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        // One key at a time, the text read again after each edit, so positions stay true.
        for (key, value) in values {
            let root: YamlNode?
            do {
                root = try YamlReader().read(Array(joined(lines).utf8))
            } catch {
                throw Problem(description: "the scenario cannot be read again: \(error)")
            }
            guard let root, let edit = try edit(for: key, value: value, root: root, lines: lines) else {
                throw Problem(description: "cannot place `\(key)` in the scenario's text")
            }
            apply(edit, to: &lines)
            // An added line holds a line break: split again so line numbers stay the file's.
            lines = joined(lines).split(separator: "\n", omittingEmptySubsequences: false).map {
                Array($0.unicodeScalars)
            }
        }
        return joined(lines)
    }

    private static func joined(_ lines: [[Unicode.Scalar]]) -> String {
        lines.map { line in
            var text = String.UnicodeScalarView()
            text.append(contentsOf: line)
            return String(text)
        }.joined(separator: "\n")
    }

    private static func apply(
        _ edit: (line: Int, column: Int, remove: Int, insert: String), to lines: inout [[Unicode.Scalar]]
    ) {
        let index = edit.line - 1
        let start = edit.column - 1
        lines[index].replaceSubrange(start..<(start + edit.remove), with: Array(edit.insert.unicodeScalars))
    }

    /// Where `key` goes: over its value, or beside its group's `name`.
    private static func edit(
        for key: String, value: String, root: YamlNode, lines: [[Unicode.Scalar]]
    ) throws(Problem) -> (line: Int, column: Int, remove: Int, insert: String)? {
        let segments = key.split(separator: ".").map(String.init)
        guard segments.count >= 3, segments[0] == "visitors", case .sequence(let groups)? = root["visitors"]?.content,
            let group = groups.first(where: { $0["name"]?.scalarText == segments[1] })
        else { return nil }
        var node: YamlNode? = group
        for segment in segments.dropFirst(2) { node = node?[segment] }
        if let node, node.scalarText != nil {
            let line = lines[node.mark.line - 1]
            return (node.mark.line, node.mark.column, scalarLength(line, from: node.mark.column - 1), value)
        }
        // Absent: only a key of the group itself can be added.
        guard segments.count == 3, case .mapping(let pairs) = group.content,
            let nameKey = pairs.first(where: { $0.key.scalarText == "name" })?.key
        else { return nil }
        let line = lines[nameKey.mark.line - 1]
        let before = line[..<(nameKey.mark.column - 1)].last { $0 != " " }
        let isFlow = before == "{" || before == ","
        let insert =
            isFlow
            ? "\(segments[2]): \(value), "
            : "\(segments[2]): \(value)\n" + String(repeating: " ", count: nameKey.mark.column - 1)
        return (nameKey.mark.line, nameKey.mark.column, 0, insert)
    }

    /// How many characters a scalar written at `start` takes: a quoted one to its closing
    /// quote, a plain one up to `,`, `}`, `]`, ` #` or the line's end, trailing spaces excluded.
    static func scalarLength(_ line: [Unicode.Scalar], from start: Int) -> Int {
        guard start < line.count else { return 0 }
        if line[start] == "\"" || line[start] == "'" {
            var index = start + 1
            while index < line.count, line[index] != line[start] { index += 1 }
            return min(line.count, index + 1) - start
        }
        var end = start
        while end < line.count, !",}]".unicodeScalars.contains(line[end]),
            !(line[end] == "#" && end > start && line[end - 1] == " ")
        {
            end += 1
        }
        while end > start, line[end - 1] == " " { end -= 1 }
        return end - start
    }
}
