import Crypto
import Foundation
import QueueClientCore

/// One problem in a scenario file: `FILE:LINE:COLUMN: message` (line and column 1-based, absent
/// when the problem has no place in the file, such as a file that cannot be read).
package struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var column: Int?
    package var message: String

    package init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String {
        guard let line else { return "\(file): \(message)" }
        guard let column else { return "\(file):\(line): \(message)" }
        return "\(file):\(line):\(column): \(message)"
    }
}

/// Every problem that kept a scenario from loading, in file order.
package struct ScenarioLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    package var diagnostics: [Diagnostic]

    package init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Reads, decodes and validates a scenario file into a `Scenario`.
package enum ScenarioLoader {
    /// A scenario is a few kilobytes; anything past this is not one.
    package static let maximumFileSize = 16 << 20

    /// `overrides` (`--set KEY=VALUE`) change values of the file before it is decoded, so they
    /// are checked where the file's own values are; the scenario's SHA-256 stays the file's.
    package static func load(
        path: String, overrides: [ScenarioOverride] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ScenarioLoadError) -> Scenario {
        let bytes: [UInt8]
        do {
            bytes = try RegularFileReader.contents(path: path, limit: maximumFileSize)
        } catch {
            switch error {
            case .folder:
                throw failure(path, "this is a folder; expected a scenario file such as scenarios/launch.yaml")
            case .tooLarge:
                throw failure(
                    path,
                    "the file is larger than \(maximumFileSize >> 20) MB; a scenario file is a few kilobytes of YAML")
            case .missing, .notRegular, .unopenable, .unreadable:
                throw failure(path, error.description)
            }
        }
        return try load(bytes: bytes, path: path, overrides: overrides, environment: environment)
    }

    package static func load(
        yaml: String, path: String, overrides: [ScenarioOverride] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ScenarioLoadError) -> Scenario {
        try load(bytes: Array(yaml.utf8), path: path, overrides: overrides, environment: environment)
    }

    /// `path` names the file in messages, gives the default scenario name and the folder CSV
    /// feeders are resolved against; the bytes are not read from it.
    package static func load(
        bytes: [UInt8], path: String, overrides: [ScenarioOverride] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ScenarioLoadError) -> Scenario {
        var root: YamlNode
        do {
            guard let document = try YamlReader(environment: environment).read(bytes) else {
                throw ScenarioLoadError(diagnostics: [
                    Diagnostic(
                        file: path, line: 1, column: 1,
                        message:
                            "the file is empty; expected a mapping with `version: 1`, `target:` and `arrivals:` (see docs/scenarios.md)"
                    )
                ])
            }
            root = document
        } catch let error as ScenarioLoadError {
            throw error
        } catch let error as YamlReadError {
            throw ScenarioLoadError(diagnostics: diagnostics(error.errors, path: path))
        } catch {
            throw failure(path, ErrorWording.fallback(error))
        }
        guard case .mapping = root.content else {
            let message =
                "expected a mapping at the top of the file (`version: 1`, `target:`, `arrivals:` …), found \(root.kindDescription)"
            throw ScenarioLoadError(diagnostics: diagnostics([YamlError(message, at: root.mark)], path: path))
        }
        let places = ScenarioPlaces(file: path, overrides: overrides)
        // An override that cannot be applied is reported, and the file with the others is still
        // checked, so one pass reports every problem.
        var overrideProblems: [YamlError] = []
        if !overrides.isEmpty {
            (root, overrideProblems) = ScenarioOverride.apply(overrides, to: root, environment: environment)
        }
        let (raw, decodingProblems) = YamlDecoder(misplacedKeyHints: RawScenario.misplacedKeyHints).decode(
            RawScenario.self, from: root)
        let fileName = (path as NSString).lastPathComponent
        var validator = ScenarioValidator(
            root: root, scenarioDirectory: directory(of: path),
            defaultName: (fileName as NSString).deletingPathExtension.isEmpty
                ? "scenario" : (fileName as NSString).deletingPathExtension)
        let scenario = raw.flatMap { validator.validate($0) }
        var problems = overrideProblems + decodingProblems + validator.problems
        if scenario == nil, problems.isEmpty {
            // Not expected: every path that gives up records why. Never fail without a word.
            problems.append(
                YamlError("the scenario could not be read; see docs/scenarios.md for the format", at: root.mark))
        }
        guard problems.isEmpty, var scenario else {
            throw ScenarioLoadError(diagnostics: diagnostics(problems, places: places))
        }
        scenario.sourcePath = path
        scenario.overrides = overrides
        scenario.sourceSHA256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        return scenario
    }

    private static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    private static func failure(_ path: String, _ message: String) -> ScenarioLoadError {
        ScenarioLoadError(diagnostics: [Diagnostic(file: path, message: message)])
    }

    /// In file order (problems without a position first), each once.
    private static func diagnostics(_ errors: [YamlError], path: String) -> [Diagnostic] {
        diagnostics(errors, places: ScenarioPlaces(file: path, overrides: []))
    }

    /// In file order (problems without a position first), then each override's, each once.
    private static func diagnostics(_ errors: [YamlError], places: ScenarioPlaces) -> [Diagnostic] {
        var seen: Set<String> = []
        return errors.filter { seen.insert(places.text(of: $0.mark) + $0.description).inserted }
            .sorted { ($0.mark ?? YamlMark(line: 0, column: 0)) < ($1.mark ?? YamlMark(line: 0, column: 0)) }
            .map {
                Diagnostic(
                    file: places.name(of: $0.mark), line: $0.mark?.line, column: $0.mark?.column, message: $0.message)
            }
    }
}
