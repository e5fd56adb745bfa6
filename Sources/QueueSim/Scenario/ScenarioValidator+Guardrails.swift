/// Windowed thresholds (guardrails): a mapping in the `thresholds:` list,
/// `- { threshold: "unavailable < 5%", over: 30s, abortOnFail: true }` (docs/scenarios.md).
extension ScenarioValidator {
    static let windowKeys = ["threshold", "group", "over", "during", "after", "abortOnFail", "minVisitors"]
    static let windowShape =
        "a windowed threshold reads `- { threshold: \"unavailable < 5%\", over: 30s }` with one of `over: DURATION`, `during: 0s..2m` or `after: eventStart` (optional: `group`, `abortOnFail`, `minVisitors`)"

    /// Whether a list item is written as a windowed threshold: a mapping of more than one key,
    /// or of one of its keys (a group's threshold is a one-key mapping `- partner: wait.p95 < 5m`,
    /// and a group may be called `threshold`).
    static func isWindowed(_ pairs: [YamlPair], groupNames: [String]?) -> Bool {
        guard pairs.count == 1 else { return true }
        let key = pairs[0].key.scalarText ?? ""
        return windowKeys.contains(key) && groupNames?.contains(key) != true
    }

    /// A windowed threshold, or nil after reporting what is wrong with it (at its key or value).
    mutating func windowedThreshold(_ node: YamlNode, pairs: [YamlPair], groupNames: [String]?) -> Threshold? {
        var valid = true
        for pair in pairs {
            let key = pair.key.scalarText ?? ""
            guard !Self.windowKeys.contains(key) else { continue }
            let hint = YamlKnownKeys.closest(to: key, among: Self.windowKeys).map { "; did you mean `\($0)`?" } ?? ""
            fail("unknown key `\(key)` in a windowed threshold\(hint) (\(Self.windowShape))", at: pair.key.mark)
            valid = false
        }
        guard let lineNode = node["threshold"] else {
            fail("missing the key `threshold` (\(Self.windowShape))", at: node.mark)
            return nil
        }
        var group: (name: String, mark: YamlMark)?
        if let groupNode = node["group"] {
            if let name = scalarText(groupNode, key: "group", expected: "the name of one of the scenario's groups") {
                if let groupNames, !groupNames.contains(name) {
                    fail(
                        "`group` names `\(name)`, but it is not one of the scenario's groups\(Self.groupHint(name, among: groupNames))",
                        at: groupNode.mark)
                    valid = false
                } else {
                    group = (name, groupNode.mark)
                }
            } else {
                valid = false
            }
        }
        let spanKeys = ["over", "during", "after"].filter { node[$0] != nil }
        var window: ThresholdWindow?
        switch spanKeys.count {
        case 0:
            fail("a windowed threshold needs one of `over`, `during` or `after` (\(Self.windowShape))", at: node.mark)
            valid = false
        case 1:
            window = span(spanKeys[0], node[spanKeys[0]]!)
            if window == nil { valid = false }
        default:
            fail(
                "a windowed threshold takes one of `over`, `during` or `after`, found \(spanKeys.map { "`\($0)`" }.joined(separator: " and "))",
                at: keyMark(spanKeys[1], in: node))
            valid = false
        }
        if let abortNode = node["abortOnFail"] {
            switch abortNode.content {
            case .scalar(let text, .plain) where ["true", "True", "TRUE"].contains(text):
                window?.abortOnFail = true
            case .scalar(let text, .plain) where ["false", "False", "FALSE"].contains(text):
                window?.abortOnFail = false
            default:
                fail("`abortOnFail` must be true or false, found \(abortNode.kindDescription)", at: abortNode.mark)
                valid = false
            }
        }
        if let minNode = node["minVisitors"] {
            if case .scalar(let text, .plain) = minNode.content, let count = Int(text), count >= 1,
                count <= ScenarioLimits.mostVisitorsInAWindow
            {
                window?.minVisitors = count
            } else {
                fail(
                    "`minVisitors` must be a whole number from 1 to \(ScenarioLimits.mostVisitorsInAWindow), found \(minNode.kindDescription)",
                    at: minNode.mark)
                valid = false
            }
        }
        guard var threshold = thresholdLine(lineNode, group: group, groupNames: groupNames) else { return nil }
        guard valid, let window else { return nil }
        threshold.window = window
        threshold.source += " \(window.text)"
        return threshold
    }

    /// `over: 30s`, `during: 0s..2m`, `after: 1m` / `after: eventStart`. Whole seconds: windows
    /// are made of the run's seconds.
    private mutating func span(_ key: String, _ node: YamlNode) -> ThresholdWindow? {
        let expected: String
        switch key {
        case "over": expected = "a duration of whole seconds such as 30s or 5m"
        case "during": expected = "a part of the run such as 0s..2m (from..to, whole seconds from run start)"
        default: expected = "eventStart or a duration of whole seconds from run start such as 90s"
        }
        guard let text = scalarText(node, key: key, expected: expected) else { return nil }
        func seconds(_ part: String) -> Duration? {
            guard let value = ScenarioUnits.duration(part.trimmingSpaces.description), value >= .zero,
                value <= ScenarioLimits.longestDuration, value.wholeMilliseconds % 1000 == 0
            else { return nil }
            return value
        }
        func problem() -> ThresholdWindow? {
            fail("`\(key)` must be \(expected), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        switch key {
        case "over":
            guard let length = seconds(text), length > .zero else { return problem() }
            return ThresholdWindow(span: .sliding(length), text: "over \(ScenarioUnits.describe(length))")
        case "during":
            let parts = text.components(separatedBy: "..")
            guard parts.count == 2, let from = seconds(parts[0]), let to = seconds(parts[1]) else { return problem() }
            guard from < to else {
                fail("`during` must end after it starts, found \(text)", at: node.mark)
                return nil
            }
            return ThresholdWindow(
                span: .during(from: from, to: to),
                text: "during \(ScenarioUnits.describe(from))..\(ScenarioUnits.describe(to))")
        default:
            if text.trimmingSpaces == "eventStart" {
                guard let eventStart = guardrailEventStart else {
                    fail(
                        "`after: eventStart` needs the embedded room (its `waitingRoom.eventStart`); against a real endpoint write the instant, e.g. `after: 90s`",
                        at: node.mark)
                    return nil
                }
                // A fraction of a second counts from the next whole second: windows are whole seconds.
                let whole = Duration.seconds((eventStart.wholeMilliseconds + 999) / 1000)
                return ThresholdWindow(span: .after(whole), text: "after eventStart")
            }
            guard let from = seconds(text) else { return problem() }
            return ThresholdWindow(span: .after(from), text: "after \(ScenarioUnits.describe(from))")
        }
    }
}
