import Foundation

/// Where `compare --real` puts the run's second 0 when `--real-from` is not given: a run whose
/// arrivals replayed a per-minute counts file started at that file's `from` (or its first
/// row), so the real file's minute of that time is the run's minute 0. Found from the run's
/// scenario file as run.json names it, when it is still there and unchanged; whatever stops
/// the default (a moved or edited scenario, another file than `--real`, a sped-up replay) is a
/// warning, never silence.
package struct ReplayAlignment: Sendable, Equatable {
    /// The default `--real-from` (the file's time as its first column writes it), if any.
    package var realFrom: String?
    /// Where it came from, for the alignment line: `scenario.yaml's arrivals.replay (from: …)`.
    package var source: String?
    /// Lines for stderr: what was assumed, and what does not match.
    package var warnings: [String] = []

    /// `folder`'s replay against the real file at `realPath` (`realName` as the user wrote it).
    package static func of(folder: String, realPath: String, realName: String) -> ReplayAlignment {
        var alignment = ReplayAlignment(realFrom: nil, source: nil)
        guard let manifest = Self.manifest(folder),
            let phases = (manifest["configuration"] as? [String: Any]).flatMap({ $0["arrivals"] as? [String: Any] })?[
                "phases"] as? [String],
            let replayed = phases.first, replayed.hasPrefix("replay ")
        else { return alignment }
        let described = String(replayed.dropFirst("replay ".count))
        let scenarioFile = manifest["scenario_file"] as? String ?? ""
        let unknown =
            "so the replay's start is not known: give --real-from if \(realName)'s first row is not the run's second 0"
        let overrides = (manifest["set"] as? [String] ?? []).compactMap { try? ScenarioOverride(argument: $0) }
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: scenarioFile, overrides: overrides)
        } catch {
            alignment.warnings.append(
                "the run replayed \(described), but its scenario \(scenarioFile.isEmpty ? "(not named in run.json)" : scenarioFile) cannot be read here, \(unknown)"
            )
            return alignment
        }
        guard scenario.sourceSHA256 == manifest["scenario_sha256"] as? String, let replay = scenario.arrivals.replay
        else {
            alignment.warnings.append(
                "the run replayed \(described), but \(scenarioFile) has changed since the run (its SHA-256 is not run.json's), \(unknown)"
            )
            return alignment
        }
        alignment.take(replay, scenarioFile: scenarioFile, realPath: realPath, realName: realName)
        return alignment
    }

    private mutating func take(_ replay: ArrivalReplay, scenarioFile: String, realPath: String, realName: String) {
        guard case .counts(let column, let interval, _) = replay.source, let origin = replay.origin else {
            warnings.append(
                "the run replayed \(replay.description), not a file of counts per minute: give --real-from if \(realName)'s first row is not the run's second 0"
            )
            return
        }
        if !Self.sameBytes(replay.path, realPath) {
            warnings.append(
                "warning: the run replayed \(replay.file) (column \(column)), not \(realName): the scores compare the run with another file than the crowd it replayed; check they are the same event"
            )
        }
        if interval != .minute || replay.speed != 1 {
            let how =
                interval != .minute ? "per \(interval.rawValue)" : "at \(ScenarioUnits.factor(replay.speed))× speed"
            warnings.append(
                "warning: the run replayed \(replay.file) \(how), so its minutes are not the file's minutes one for one"
            )
        }
        realFrom = origin
        source = "\(scenarioFile)'s replay of \(replay.file)"
    }

    private static func manifest(_ folder: String) -> [String: Any]? {
        let path = Recorder.path(folder, Recorder.manifestFile)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// Whether two paths hold the same bytes (the same file, or a copy of it).
    private static func sameBytes(_ first: String, _ second: String) -> Bool {
        guard let one = FileManager.default.contents(atPath: first) else { return false }
        return one == FileManager.default.contents(atPath: second)
    }
}
