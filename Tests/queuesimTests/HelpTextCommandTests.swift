import Foundation
import Testing

/// `--help` read in an 80-column terminal: ArgumentParser wraps each line of a command's
/// discussion at the screen width (a line is kept whole only when it is shorter than the
/// width), so an example longer than that would be broken in the middle of a command and no
/// longer run when pasted. Examples are laid out at most 78 columns a line, with `\` continuation
/// lines where a command is longer.
@Suite("help text: examples stay runnable in an 80-column terminal")
struct HelpTextCommandTests {
    static let commands = [
        "", "validate", "run", "serve", "recover", "report", "merge", "sweep", "compare", "import",
        "import queue-it", "import queue-it-stats", "calibrate",
    ]

    /// The example lines of a help text rendered without wrapping: an indented line starting
    /// with `queuesim `, and the continuation lines after one that ends with `\`.
    static func exampleLines(_ text: String) -> [String] {
        var examples: [String] = []
        var continuing = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let isCommand = line.hasPrefix("  ") && (trimmed.hasPrefix("queuesim ") || trimmed.hasPrefix("curl "))
            if isCommand || continuing { examples.append(line) }
            continuing = (isCommand || continuing) && trimmed.hasSuffix("\\")
        }
        return examples
    }

    @Test("every command's examples are whole lines of at most 78 columns at COLUMNS=80", arguments: commands)
    func examplesWholeAt80Columns(command: String) throws {
        let arguments = command.split(separator: " ").map(String.init) + ["--help"]
        let wide = try QueueSimProcess.run(arguments, environment: ["COLUMNS": "1000"])
        let narrow = try QueueSimProcess.run(arguments, environment: ["COLUMNS": "80"])
        #expect(wide.status == 0 && narrow.status == 0, "\(wide.stderr)\(narrow.stderr)")
        let examples = Self.exampleLines(wide.stdout)
        #expect(!examples.isEmpty, "queuesim \(command) --help shows no example")
        let narrowLines = Set(narrow.stdout.split(separator: "\n").map(String.init))
        for example in examples {
            #expect(example.count <= 78, "\(example.count) columns: \(example)")
            #expect(narrowLines.contains(example), "wrapped at 80 columns: \(example)")
        }
    }
}
