/// One `--set KEY=VALUE`: a scenario value by its path, applied to the scenario's YAML tree
/// before decoding, so the value is checked by the same validator code as the file's own.
///
/// The path is dotted keys through mappings (`waitingRoom.outflow`); in a list an item is found
/// by its `name:` (`visitors.app.flow`), else by a 0-based number (`arrivals.phases.1.rate`).
/// The value is read as YAML (`1200/min`, `5m`, `[1, 2]`, `{ mean: 5m }`), `${NAME}` references
/// expanded as in the file; an empty value is YAML's null, as `key:` with nothing after it.
package struct ScenarioOverride: Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var value: String
    /// How the override was given, for messages: `--set` (the default); a sweep may say
    /// `--vary`, so a bad grid value is reported under the option the user typed.
    package var origin: String

    package init(path: String, value: String, origin: String = "--set") {
        self.path = path
        self.value = value
        self.origin = origin
    }

    /// Parses `KEY=VALUE` (the value may hold further `=`); the error names the argument.
    package init(argument: String, origin: String = "--set") throws(ScenarioOverrideError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw ScenarioOverrideError(
                "\(origin) \(Self.shown(argument)): expected KEY=VALUE, such as \(origin) waitingRoom.outflow=1200/min")
        }
        let path = String(argument[..<equals])
        self.init(path: path, value: String(argument[argument.index(after: equals)...]), origin: origin)
        if path.isEmpty {
            throw ScenarioOverrideError(
                "\(label): the key before `=` is empty; expected a path such as waitingRoom.outflow")
        }
        if path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw ScenarioOverrideError(
                "\(label): the path `\(path)` has an empty key; write keys separated by single dots, such as visitors.app.flow"
            )
        }
    }

    /// `KEY=VALUE` as typed, for run.json's `set` and the report; a value that may be a
    /// credential (the room's secret key, an enqueue key or token, an invite code) is
    /// `<redacted>`, and any other goes through `SecretRedaction`.
    package var recorded: String {
        "\(path)=\(mayHoldCredential ? SecretRedaction.replacement : SecretRedaction.redact(value))"
    }

    /// `--set KEY=VALUE`, the name problems in this override are reported under.
    package var label: String { "\(origin) \(Self.shown(recorded))" }

    package var description: String { label }

    /// The keys whose values are credentials (docs/reports.md: never in a report or a log).
    /// Matched anywhere in the path or the value, so `--set waitingRoom={ secretKey: … }` is
    /// redacted as well.
    static let credentialKeys = ["secretKey", "enqueueKey", "enqueueToken", "inviteCode", "inviteCodes"]

    var mayHoldCredential: Bool {
        let segments = path.split(separator: ".").map { $0.lowercased() }
        return Self.credentialKeys.contains { key in
            segments.contains(key.lowercased()) || value.lowercased().contains(key.lowercased())
        }
    }

    /// `arguments` with the value of every `--set KEY=VALUE` (`--set=KEY=VALUE`) that may hold
    /// a credential replaced by `<redacted>`, for `run.json`'s `command_line`.
    package static func redactingCommandLine(_ arguments: [String], option: String = "--set") -> [String] {
        var redacted = arguments
        for index in arguments.indices {
            let argument = arguments[index]
            if argument.hasPrefix(option + "="),
                let override = try? ScenarioOverride(argument: String(argument.dropFirst(option.count + 1)))
            {
                redacted[index] = option + "=" + override.recorded
            } else if index > 0, arguments[index - 1] == option,
                let override = try? ScenarioOverride(argument: argument)
            {
                redacted[index] = override.recorded
            }
        }
        return redacted
    }

    /// The argument on one line (`YamlError.oneLine`): a value may hold a line break.
    private static func shown(_ text: String) -> String { YamlError.oneLine(text) }
}

/// `--set` given in a form that names no scenario value (no `=`, an empty key).
package struct ScenarioOverrideError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    init(_ message: String) { self.message = message }

    package var description: String { message }
}

/// Names the text a position is in: the scenario file, or the override that brought the node
/// (`--set KEY=VALUE`, whose text is its line 1).
package struct ScenarioPlaces: Sendable, Equatable {
    package var file: String
    package var overrides: [ScenarioOverride]

    package init(file: String, overrides: [ScenarioOverride]) {
        self.file = file
        self.overrides = overrides
    }

    /// `FILE`, or `--set KEY=VALUE` for a position in an override.
    package func name(of mark: YamlMark?) -> String {
        guard let source = mark?.source, source > 0, source <= overrides.count else { return file }
        return overrides[source - 1].label
    }

    /// `FILE:LINE:COLUMN` (`FILE` without a position), the prefix of a problem's line.
    package func text(of mark: YamlMark?) -> String {
        guard let mark else { return name(of: nil) }
        return "\(name(of: mark)):\(mark.line):\(mark.column)"
    }
}

extension Scenario {
    /// Where a position of this scenario is, for messages: `FILE:LINE:COLUMN`, or
    /// `--set KEY=VALUE:1:COLUMN` when the value came from the command line.
    package func place(of mark: YamlMark?) -> String {
        ScenarioPlaces(file: sourcePath, overrides: overrides).text(of: mark)
    }
}
