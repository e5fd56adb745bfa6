/// `waitingRoom.outflow: { replay: stats.csv, column: maxoutflow }`: the room's outflow taken
/// from a column of visitors per minute (Queue-it's Max Outflow, minute by minute), as the
/// ordinary schedule of changes (`OutflowChange`), one where the value changes.
extension ScenarioValidator {
    static let outflowReplayKeys = ["replay", "column", "per", "from", "to", "speed"]

    mutating func outflowReplay(_ node: YamlNode, into room: inout WaitingRoomSettings) {
        guard case .mapping(let pairs) = node.content else { return }
        let key = "waitingRoom.outflow"
        for pair in pairs {
            guard let name = pair.key.scalarText, !Self.outflowReplayKeys.contains(name) else { continue }
            let suggestion = YamlKnownKeys.closest(to: name, among: Self.outflowReplayKeys)
            fail(
                "unknown key `\(name)` in `\(key)`; "
                    + (suggestion.map { "did you mean `\($0)`?" }
                        ?? "a replayed outflow is { replay: FILE, column: NAME } (with per, from, to, speed)"),
                at: pair.key.mark)
        }
        guard let fileNode = node["replay"], let fileText = fileNode.scalarText, !fileNode.isNull else {
            fail(
                "`\(key)` as a mapping replays a file: { replay: stats.csv, column: maxoutflow }; or write a rate such as 600/min, or a list of changes",
                at: node.mark)
            return
        }
        let file = Positioned(fileText, at: fileNode.mark)
        let column = node["column"].flatMap { column in column.scalarText.map { Positioned($0, at: column.mark) } }
        let interval = outflowReplayInterval(node["per"])
        let speed = replayFactor(node["speed"], key: "\(key).speed")
        guard checkPrintable(file, key: "\(key).replay"), let interval, let speed else { return }
        let path = file.value.hasPrefix("/") ? file.value : PathText.appending(file.value, to: scenarioDirectory)
        let table: ReplayCountsFile
        do {
            table = try ReplayCountsFile.read(
                path: path, file: file.value, column: column?.value, interval: interval, what: "an outflow")
        } catch {
            replayFileProblem(error, file: file, column: column, key: key)
            return
        }
        guard let window = replayWindow(node["from"], node["to"], key: key, table: table, interval: interval) else {
            return
        }
        let origin = window.from ?? table.rows[0].time
        let rows = table.rows.filter { $0.time >= origin && $0.time < (window.to ?? .infinity) }
        guard let changes = outflowChanges(rows, origin: origin, speed: speed, file: file, column: table.column) else {
            return
        }
        room.outflowPerSecond = changes[0].perSecond
        room.outflowChanges = Array(changes.dropFirst())
    }

    private mutating func outflowReplayInterval(_ node: YamlNode?) -> ReplayInterval? {
        guard let node, !node.isNull else { return .minute }
        guard let text = node.scalarText, let interval = ReplayInterval(rawValue: text) else {
            fail(
                "`waitingRoom.outflow.per` must be one of minute, second, found \(node.kindDescription)", at: node.mark)
            return nil
        }
        return interval
    }

    /// A change where the value differs from the row before; an empty cell keeps the rate. The
    /// first kept row must have a value, so the rate of every release is written down.
    private mutating func outflowChanges(
        _ rows: [ReplayCountsFile.Row], origin: Double, speed: Double, file: Positioned<String>, column: String
    ) -> [OutflowChange]? {
        let key = "waitingRoom.outflow.replay"
        guard let first = rows.first else {
            fail("`\(key)`: no row of \(file.value) falls between `from` and `to`", at: file.mark)
            return nil
        }
        guard first.value != nil else {
            fail(
                "`\(key)`: \(file.value):\(first.line): `\(column)` is empty in the first row; the outflow at the room's start must be written",
                at: file.mark)
            return nil
        }
        var changes: [OutflowChange] = []
        for row in rows {
            guard let perMinute = row.value else { continue }
            // `speed` runs the event faster: its times shrink and its rates grow alike.
            let perSecond = perMinute / 60 * speed
            guard perSecond >= ScenarioLimits.lowestOutflow, perSecond <= ScenarioLimits.highestRate else {
                let why =
                    perSecond > 0
                    ? "outside the room's range (at most \(ScenarioLimits.highestRateText))"
                    : "a room with no outflow releases nobody; leave the cell empty to keep the rate before"
                fail(
                    "`\(key)`: \(file.value):\(row.line): `\(column)` is \(ScenarioUnits.grouped(perMinute))/min, \(why)",
                    at: file.mark)
                return nil
            }
            guard changes.last?.perSecond != perSecond else { continue }
            let at = ReplayCountsPlan.instant((row.time - origin) / speed)
            guard at <= ScenarioLimits.longestDuration else { break }
            changes.append(OutflowChange(at: at, perSecond: perSecond))
        }
        return changes
    }
}
