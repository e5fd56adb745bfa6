import Foundation

/// The `sweep:` block (docs/sweep.md): its shape, units and goals are checked here, for
/// `validate`, `run` (which ignores the block) and `sweep` alike. Whether each value suits its
/// key (a rate for `waitingRoom.outflow`) is checked by `queuesim sweep` loading every value
/// as an override, with the value's position in this block.
extension ScenarioValidator {
    static let sweepKeys = ["vary", "seeds", "goals", "minimize", "maximize"]

    mutating func sweepSettings(_ node: YamlNode?, groupNames: [String]?) -> SweepSettings? {
        guard let node, !node.isNull else { return nil }
        guard case .mapping(let pairs) = node.content else {
            fail(
                "`sweep` is a mapping with `vary:`, `seeds:`, `goals:` and `minimize:` or `maximize:` (see docs/sweep.md), found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        var settings = SweepSettings()
        for pair in pairs {
            let key = pair.key.scalarText ?? ""
            switch key {
            case "vary": settings.axes = sweepAxes(pair.value)
            case "seeds": settings.seeds = sweepSeeds(pair.value)
            case "goals": settings.goals = sweepGoals(pair.value, groupNames: groupNames)
            case "minimize", "maximize":
                guard let varied = pair.value.scalarText, !pair.value.isNull, !varied.trimmingSpaces.isEmpty else {
                    fail("`sweep.\(key)` names a varied key, such as `waitingRoom.outflow`", at: pair.value.mark)
                    continue
                }
                if let other = settings.objective {
                    fail(
                        "`sweep` takes `minimize` or `maximize`, not both (`\(other.direction.rawValue)` is set too)",
                        at: pair.key.mark)
                    continue
                }
                settings.objective = SweepObjective(
                    direction: key == "minimize" ? .minimize : .maximize, key: String(varied.trimmingSpaces),
                    mark: pair.value.mark)
            default:
                let hint = YamlKnownKeys.closest(to: key, among: Self.sweepKeys).map { "; did you mean `\($0)`?" }
                fail(
                    "unknown key `sweep.\(key)`\(hint ?? "; expected one of \(Self.sweepKeys.map { "`\($0)`" }.joined(separator: ", "))")",
                    at: pair.key.mark)
            }
        }
        if let objective = settings.objective, let mark = objective.mark, !settings.axes.isEmpty,
            !settings.axes.contains(where: { $0.key == objective.key })
        {
            // With no `vary:` here the keys may all come from `--vary`: the command checks then.
            fail(
                "`sweep.\(objective.direction.rawValue)` names `\(objective.key)`, which `sweep.vary` does not vary (\(settings.axes.map { "`\($0.key)`" }.joined(separator: ", ")))",
                at: mark)
        }
        let points = settings.axes.reduce(1.0) { $0 * Double($1.values.count) }
        if points > Double(SweepSettings.mostPoints) {
            fail(
                "`sweep.vary` makes \(ScenarioUnits.grouped(points)) points; a sweep takes at most \(ScenarioUnits.grouped(Double(SweepSettings.mostPoints)))",
                at: keyMark("vary", in: node))
        }
        return settings
    }

    private mutating func sweepAxes(_ node: YamlNode) -> [SweepAxis] {
        guard case .mapping(let pairs) = node.content else {
            fail(
                "`sweep.vary` maps scenario keys to their values, e.g. `waitingRoom.outflow: { from: 600/min, to: 3000/min, step: 300/min }` or `arrivals.scale: [1, 1.5, 2]`, found \(node.kindDescription)",
                at: node.mark)
            return []
        }
        var axes: [SweepAxis] = []
        for pair in pairs {
            guard let key = pair.key.scalarText, Self.isScenarioPath(key) else {
                fail(
                    "`sweep.vary` keys are scenario paths such as `waitingRoom.outflow` or `arrivals.scale`, found \(pair.key.kindDescription)",
                    at: pair.key.mark)
                continue
            }
            if axes.contains(where: { $0.key == key }) {
                fail("`sweep.vary.\(key)` is varied twice", at: pair.key.mark)
                continue
            }
            guard let values = sweepValues(pair.value, key: key) else { continue }
            switch values.values() {
            case .success(let list): axes.append(SweepAxis(key: key, values: list, mark: pair.value.mark))
            case .failure(let problem): fail("`sweep.vary.\(key)`: \(problem)", at: pair.value.mark)
            }
        }
        return axes
    }

    private mutating func sweepValues(_ node: YamlNode, key: String) -> SweepValues? {
        let shape =
            "`sweep.vary.\(key)` takes a list of values (`[1, 1.5, 2]`) or `{ from: 600/min, to: 3000/min, step: 300/min }` in the key's own units"
        switch node.content {
        case .sequence(let items):
            var texts: [String] = []
            for item in items {
                guard let text = item.scalarText, !item.isNull else {
                    fail("\(shape); found \(item.kindDescription) in the list", at: item.mark)
                    return nil
                }
                texts.append(text)
            }
            return .list(texts)
        case .mapping(let pairs):
            var parts: [String: String] = [:]
            for pair in pairs {
                let name = pair.key.scalarText ?? ""
                guard ["from", "to", "step"].contains(name) else {
                    let hint = YamlKnownKeys.closest(to: name, among: ["from", "to", "step"]).map {
                        "; did you mean `\($0)`?"
                    }
                    fail(
                        "unknown key `\(name)` in a range\(hint ?? "; expected `from`, `to` and `step`")",
                        at: pair.key.mark)
                    return nil
                }
                guard let text = pair.value.scalarText, !pair.value.isNull else {
                    fail("`\(name)` takes one value such as 600/min, 5m or 1.5", at: pair.value.mark)
                    return nil
                }
                parts[name] = text
            }
            guard let from = parts["from"], let to = parts["to"], let step = parts["step"] else {
                let missing = ["from", "to", "step"].filter { parts[$0] == nil }
                fail("\(shape); missing \(missing.map { "`\($0)`" }.joined(separator: ", "))", at: node.mark)
                return nil
            }
            return .range(from: from, to: to, step: step)
        case .scalar:
            guard let text = node.scalarText, !node.isNull else {
                fail("\(shape); found nothing", at: node.mark)
                return nil
            }
            // One value is a grid of one point: allowed, as a list of one.
            return .list([text])
        }
    }

    private mutating func sweepSeeds(_ node: YamlNode) -> Int? {
        guard let text = node.scalarText, let seeds = Int(text.trimmingSpaces), seeds >= 1,
            seeds <= SweepSettings.mostSeeds
        else {
            fail(
                "`sweep.seeds` is how many seeds each point runs with, a whole number from 1 to \(SweepSettings.mostSeeds), found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        return seeds
    }

    private mutating func sweepGoals(_ node: YamlNode, groupNames: [String]?) -> [Threshold] {
        guard case .sequence(let items) = node.content else {
            fail(
                "`sweep.goals` is a list in the thresholds' grammar, e.g. `- wait.p95 < 10m`, found \(node.kindDescription)",
                at: node.mark)
            return []
        }
        return thresholds(items, groupNames: groupNames, allowsWindows: false)
    }

    /// `waitingRoom.outflow`, `visitors.app.patience.mean`: dot-separated names, no spaces.
    static func isScenarioPath(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return !text.isEmpty
            && parts.allSatisfy { part in
                !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
            }
    }
}
