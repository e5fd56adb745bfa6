/// `waitingRoom.outflow` as a schedule: `[ { at: 0s, rate: 600/min }, { at: 10m, rate: 1200/min } ]`.
extension ScenarioValidator {
    static let outflowStepKeys = ["at", "rate"]
    static let outflowStepShape = "each change is { at: 10m, rate: 1200/min }"

    /// Reads the list into `room.outflowPerSecond` (the first rate) and `room.outflowChanges`
    /// (the later ones). `at` is on the run's clock, strictly ascending; the first change
    /// must come no later than `eventStart`, so the rate of every release is written down.
    mutating func outflowSchedule(_ node: YamlNode, into room: inout WaitingRoomSettings) {
        if case .mapping = node.content {
            outflowReplay(node, into: &room)
            return
        }
        guard case .sequence(let items) = node.content else { return }
        guard !items.isEmpty else {
            fail(
                "`waitingRoom.outflow` needs at least one change when it is a list; \(Self.outflowStepShape), or write one rate such as 600/min",
                at: node.mark)
            return
        }
        let problemsBefore = problems.count
        var steps: [OutflowChange] = []
        var previous: (at: Duration, node: YamlNode)?
        for (index, item) in items.enumerated() {
            let key = "waitingRoom.outflow[\(index)]"
            guard case .mapping(let pairs) = item.content else {
                fail(
                    "`\(key)` must be a mapping; \(Self.outflowStepShape), found \(item.kindDescription)", at: item.mark
                )
                continue
            }
            // "Did you mean" among the keys the change still lacks: `{ at: 0s, rat: … }` means `rate`.
            let written = pairs.compactMap { $0.key.scalarText }
            let missing = Self.outflowStepKeys.filter { !written.contains($0) }
            for name in written where !Self.outflowStepKeys.contains(name) {
                let suggestion = YamlKnownKeys.closest(
                    to: name, among: missing.isEmpty ? Self.outflowStepKeys : missing)
                let mark = pairs.first { $0.key.scalarText == name }?.key.mark ?? item.mark
                fail(
                    "unknown key `\(name)` in `\(key)`; "
                        + (suggestion.map { "did you mean `\($0)`?" } ?? "expected one of: at, rate"),
                    at: mark)
            }
            guard let atNode = item["at"], let rateNode = item["rate"] else {
                fail(
                    "missing `\(item["at"] == nil ? "at" : "rate")` in `\(key)`; \(Self.outflowStepShape)",
                    at: item.mark)
                continue
            }
            let at = optionalDuration(atNode, key: "\(key).at", allowZero: true)
            let perSecond = rate(rateNode, key: "\(key).rate")
            if let perSecond {
                warnBareOutflow(perSecond, rateNode, key: "\(key).rate")
                checkOutflowReleasesSomeone(perSecond, at: rateNode, key: "\(key).rate")
            }
            guard let at, let perSecond else { continue }
            if index == 0, at > room.eventStart {
                fail(
                    "`\(key).at` is \(ScenarioUnits.describe(at)), after `waitingRoom.eventStart` (\(ScenarioUnits.describe(room.eventStart))): the first rate must be in force when the room starts releasing; write `at: 0s`",
                    at: atNode.mark)
            }
            if let previous, at <= previous.at {
                fail(
                    "`\(key).at` must be later than the change before it (\(ScenarioUnits.describe(previous.at)) at \(previous.node.mark)), found \(ScenarioUnits.describe(at)); list the changes in time order",
                    at: atNode.mark)
            }
            previous = (at, atNode)
            steps.append(OutflowChange(at: at, perSecond: perSecond))
        }
        guard problems.count == problemsBefore, let first = steps.first else { return }
        room.outflowPerSecond = first.perSecond
        room.outflowChanges = Array(steps.dropFirst())
    }
}
