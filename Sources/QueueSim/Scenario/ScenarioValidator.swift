import QueueClientCore

/// Turns a `RawScenario` into a `Scenario`: defaults, units, ranges and the rules that tie keys
/// together. Every problem is collected with its position; nothing stops at the first one.
struct ScenarioValidator {
    let root: YamlNode
    /// The folder of the scenario file; CSV feeder paths are resolved against it.
    let scenarioDirectory: String
    let defaultName: String
    var problems: [YamlError] = []
    /// Things that are valid but probably not meant (a bare outflow number): printed by
    /// `validate` and `run` as `FILE:LINE:COLUMN: warning: ...`, never a change of exit code.
    var warnings: [YamlError] = []
    /// Where each CSV feeder's `csv:` is written, by resolved path (the first mention).
    var feederMarks: [String: YamlMark] = [:]
    /// The embedded room's event start, for `after: eventStart` (nil against a real endpoint).
    var guardrailEventStart: Duration?

    init(root: YamlNode, scenarioDirectory: String, defaultName: String) {
        self.root = root
        self.scenarioDirectory = scenarioDirectory
        self.defaultName = defaultName
    }

    mutating func fail(_ message: String, at mark: YamlMark) {
        problems.append(YamlError(message, at: mark))
    }

    mutating func warn(_ message: String, at mark: YamlMark) {
        warnings.append(YamlError(message, at: mark))
    }

    /// Where `key` is written in `mapping` (the mapping's own position if it is absent).
    func keyMark(_ key: String, in mapping: YamlNode) -> YamlMark {
        guard case .mapping(let pairs) = mapping.content else { return mapping.mark }
        return pairs.first { $0.key.scalarText == key }?.key.mark ?? mapping.mark
    }

    func has(_ key: String, in mapping: YamlNode) -> Bool { mapping[key] != nil }

    /// A required key without a usable value: written but empty (`target:` with nothing after
    /// it) is reported at the key, absent at the mapping that should hold it. A value that is
    /// there but wrong was already reported by the decoder.
    mutating func reportMissing(_ key: String, in mapping: YamlNode?, path: String, expected: String) {
        guard let mapping else { return }
        guard let value = mapping[key] else {
            fail("missing the required key `\(path)` (\(expected))", at: mapping.mark)
            return
        }
        if value.isNull { fail("`\(path)` is empty; expected \(expected)", at: keyMark(key, in: mapping)) }
    }

    mutating func validate(_ raw: RawScenario) -> Scenario? {
        let problemsBefore = problems.count
        checkVersion(raw.version)
        let name = scenarioName(raw.name)
        let seed = raw.seed?.value ?? 1
        let endpointMark = raw.target.flatMap { $0.value.endpoint?.mark }
        let target = target(raw.target)
        let isEmbedded = target?.endpoint == .embedded
        let clock = choice(raw.clock, key: "clock", default: ClockKind.wall)
        if clock == .virtual, let target, !isEmbedded, let mark = raw.clock?.mark {
            fail(
                "`clock: virtual` needs `target.endpoint: embedded` (virtual time cannot drive a real server at \(target.endpointDescription))",
                at: mark)
        }
        let client = clientSettings(raw.client?.value)
        let arrivals = arrivals(raw.arrivals)
        let groups = groups(raw.visitors, target: target, clientPlatforms: client.platforms)
        var waitingRoom: WaitingRoomSettings?
        if let rawRoom = raw.waitingRoom {
            if let target, !isEmbedded {
                let setAt = endpointMark.map { " (set at \($0))" } ?? ""
                fail(
                    "`waitingRoom` configures the embedded room, but `target.endpoint` is \(target.endpointDescription)\(setAt); remove `waitingRoom` or use `endpoint: embedded`",
                    at: keyMark("waitingRoom", in: root))
            }
            waitingRoom = waitingRoomSettings(rawRoom.value)
        } else if isEmbedded {
            waitingRoom = WaitingRoomSettings()
        }
        let run = runSettings(raw.run?.value)
        if let room = waitingRoom, let outflow = raw.waitingRoom?.value.outflow {
            checkOutflowReleasesSomeone(room.outflowPerSecond, at: outflow)
        }
        guardrailEventStart = isEmbedded ? (waitingRoom?.eventStart ?? .zero) : nil
        let thresholds = thresholds(raw.thresholds, groupNames: groups?.map(\.name))
        let compareRules = compareRules(raw.compare)
        let sweep = sweepSettings(raw.sweep, groupNames: groups?.map(\.name))
        var reportsDirectory: String?
        if let dir = raw.reports?.value.dir {
            if dir.value.trimmingSpaces.isEmpty {
                fail("`reports.dir` must name a folder, found an empty text", at: dir.mark)
            } else if checkPrintable(dir, key: "reports.dir") {
                reportsDirectory = dir.value
            }
        }
        guard problems.count == problemsBefore, let target, let arrivals, let groups else { return nil }
        var scenario = Scenario(
            version: 1, name: name, seed: seed, clock: clock, target: target, client: client, arrivals: arrivals,
            groups: groups, waitingRoom: isEmbedded ? waitingRoom : nil, run: run, thresholds: thresholds,
            reportsDirectory: reportsDirectory)
        scenario.compareRules = compareRules
        scenario.sweep = sweep
        scenario.positions.arrivals = has("arrivals", in: root) ? keyMark("arrivals", in: root) : nil
        scenario.positions.target = has("target", in: root) ? keyMark("target", in: root) : nil
        scenario.positions.clock = has("clock", in: root) ? keyMark("clock", in: root) : nil
        scenario.positions.run = has("run", in: root) ? keyMark("run", in: root) : nil
        scenario.positions.feeders = feederMarks
        scenario.positions.outflow = raw.waitingRoom?.value.outflow?.mark
        scenario.positions.concurrency = raw.run?.value.concurrency?.mark
        scenario.warnings = warnings
        return scenario
    }

    /// `waitingRoom.outflow` above 0 can still be so low that the release interval does not fit
    /// in 64-bit nanoseconds (`0.00000000001/min` crashed the room).
    mutating func checkOutflowReleasesSomeone(_ outflow: Double, at node: YamlNode, key: String = "waitingRoom.outflow")
    {
        // A scheduled outflow's rates are checked one by one (ScenarioValidator+Outflow).
        guard node.scalarText != nil, outflow > 0, outflow < ScenarioLimits.lowestOutflow else { return }
        fail(
            "`\(key)` must let at least one visitor through within a year (\(ScenarioLimits.longestDurationText)), found \(node.scalarText ?? "")",
            at: node.mark)
    }

    private mutating func checkVersion(_ node: YamlNode?) {
        guard let node else {
            if let empty = root["version"], empty.isNull {
                fail("`version` is empty; expected `version: 1`", at: keyMark("version", in: root))
            } else {
                fail("missing the required key `version`; add `version: 1` at the top of the file", at: root.mark)
            }
            return
        }
        guard case .scalar(let text, .plain) = node.content, let number = Int(text) else {
            fail("`version` must be the number 1, found \(node.kindDescription)", at: node.mark)
            return
        }
        if number != 1 {
            fail("`version: \(number)` is not supported; this queuesim reads scenario format version 1", at: node.mark)
        }
    }

    private mutating func scenarioName(_ raw: Positioned<String>?) -> String {
        guard let raw else { return defaultName }
        let name = raw.value
        checkName(raw, key: "name")
        if name.trimmingSpaces.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\\") {
            fail(
                "`name` names the report folder: expected a non-empty name without `/`, found \"\(name)\"", at: raw.mark
            )
        }
        return name
    }

    private mutating func clientSettings(_ raw: RawClient?) -> ClientSettings {
        var settings = ClientSettings()
        guard let raw else { return settings }
        if let node = raw.platform, let platforms = platformMix(node, key: "client.platform", client: settings.platform)
        {
            settings.platform = platforms.shares[0].platform
            if platforms.isMixed { settings.platformMix = platforms }
        }
        // Left out, these are each group platform's own.
        if let sdkVersion = raw.sdkVersion, checkPrintable(sdkVersion, key: "client.sdkVersion") {
            settings.sdkVersion = nonEmpty(sdkVersion, key: "client.sdkVersion")
        }
        if let userAgent = raw.userAgent { settings.userAgent = userAgent.value }
        if raw.requestTimeout != nil {
            settings.requestTimeout = duration(raw.requestTimeout, key: "client.requestTimeout", default: .seconds(10))
        }
        if let retry = raw.queuePageRetry {
            settings.queuePageRetry = choice(retry, key: "client.queuePageRetry", default: QueuePageRetry.poll)
        }
        settings.pollInterval = duration(raw.pollInterval, key: "client.pollInterval", default: settings.pollInterval)
        settings.maxWait = duration(raw.maxWait, key: "client.maxWait", default: settings.maxWait)
        if let maxRestarts = raw.maxRestarts {
            if maxRestarts.value < 0 || maxRestarts.value > ScenarioLimits.mostRestarts {
                fail(
                    "`client.maxRestarts` must be from 0 to \(ScenarioLimits.mostRestarts), found \(maxRestarts.value)",
                    at: maxRestarts.mark)
            }
            settings.maxRestarts = min(max(0, maxRestarts.value), ScenarioLimits.mostRestarts)
        }
        settings.connections = connectionModel(raw.connections, key: "client.connections") ?? settings.connections
        settings.sourceAddresses = sourceAddresses(raw.sourceAddresses)
        settings.http = choice(raw.http, key: "client.http", default: HTTPVersionChoice.auto)
        return settings
    }

    private mutating func runSettings(_ raw: RawRun?) -> RunSettings {
        var settings = RunSettings()
        guard let raw else { return settings }
        if let concurrency = raw.concurrency {
            if concurrency.value < 1 || concurrency.value > ScenarioLimits.mostConcurrency {
                fail(
                    "`run.concurrency` must be from 1 to \(ScenarioLimits.mostConcurrency), found \(concurrency.value)",
                    at: concurrency.mark)
            }
            settings.concurrency = min(max(1, concurrency.value), ScenarioLimits.mostConcurrency)
        }
        settings.duration = optionalDuration(raw.duration, key: "run.duration", allowZero: false)
        if let node = raw.maxRequestRate, !node.isNull {
            settings.maxRequestRate = rate(node, key: "run.maxRequestRate")
        }
        if let startAt = raw.startAt {
            if let date = StartInstant.parse(startAt.value) {
                settings.startAt = date
            } else {
                fail("`run.startAt` must be \(StartInstant.expected), found \"\(startAt.value)\"", at: startAt.mark)
            }
        }
        return settings
    }

    /// "; did you mean `partner`?" for a near miss, else the groups there are.
    static func groupHint(_ name: String, among groupNames: [String]) -> String {
        if let suggestion = YamlKnownKeys.closest(to: name, among: groupNames) {
            return "; did you mean `\(suggestion)`?"
        }
        return " (\(groupNames.map { "`\($0)`" }.joined(separator: ", ")))"
    }

    /// A threshold is one line (`passed >= 99%`), or, for one visitor group, a one-key mapping
    /// `- partner: wait.p95 < 5m` (or the line `"partner: wait.p95 < 5m"`).
    private mutating func thresholds(_ raw: YamlList<YamlNode>?, groupNames: [String]?) -> [Threshold] {
        guard let raw else { return [] }
        return thresholds(raw.elements, groupNames: groupNames)
    }

    /// The lines of a threshold list (`thresholds:`, and `sweep.goals:` in the same grammar;
    /// only `thresholds:` takes windowed thresholds).
    mutating func thresholds(_ nodes: [YamlNode], groupNames: [String]?, allowsWindows: Bool = true) -> [Threshold] {
        var thresholds: [Threshold] = []
        for node in nodes {
            var lineNode = node
            var group: (name: String, mark: YamlMark)?
            if case .mapping(let pairs) = node.content, Self.isWindowed(pairs, groupNames: groupNames) {
                guard allowsWindows else {
                    fail(
                        "a goal is one line such as `wait.p95 < 10m`; windows (`over`, `during`, `after`) are for `thresholds:`",
                        at: node.mark)
                    continue
                }
                if let threshold = windowedThreshold(node, pairs: pairs, groupNames: groupNames) {
                    thresholds.append(threshold)
                }
                continue
            }
            if case .mapping(let pairs) = node.content, pairs.count == 1, let name = pairs[0].key.scalarText {
                if let groupNames, !groupNames.contains(name) {
                    fail(
                        "a threshold for one group reads `- GROUP: METRIC OPERATOR VALUE`, but `\(name)` is not one of the scenario's groups\(Self.groupHint(name, among: groupNames))",
                        at: pairs[0].key.mark)
                    continue
                }
                group = (name, pairs[0].key.mark)
                lineNode = pairs[0].value
            }
            if let threshold = thresholdLine(lineNode, group: group, groupNames: groupNames, listItem: node) {
                thresholds.append(threshold)
            }
        }
        return thresholds
    }

    /// One threshold line (`passed >= 99%`), for `group` if given; nil after reporting its
    /// problem, at the offending word of a one-line scalar.
    mutating func thresholdLine(
        _ lineNode: YamlNode, group: (name: String, mark: YamlMark)?, groupNames: [String]?, listItem: YamlNode? = nil
    ) -> Threshold? {
        guard case .scalar(let text, let style) = lineNode.content, !lineNode.isNull else {
            fail(
                "a threshold is one line such as `passed >= 99%` or `wait.p95 < 5m` (for one group: `- partner: wait.p95 < 5m`), found \((listItem ?? lineNode).kindDescription)",
                at: (listItem ?? lineNode).mark)
            return nil
        }
        switch ThresholdParser.parse(group.map { "\($0.name): \(text)" } ?? text) {
        case .success(let threshold):
            if let name = threshold.group, let groupNames, !groupNames.contains(name) {
                fail(
                    "this threshold names the group `\(name)`, but it is not one of the scenario's groups\(Self.groupHint(name, among: groupNames))",
                    at: group?.mark ?? lineNode.mark)
                return nil
            }
            return threshold
        case .failure(let problem):
            // On a one-line plain scalar the offset points at the offending word.
            var mark = lineNode.mark
            let offset = problem.offset - (group.map { $0.name.count + 2 } ?? 0)
            if offset >= 0 {
                if style == .plain, !text.contains("\n") { mark.column += offset }
                if style == .singleQuoted || style == .doubleQuoted { mark.column += offset + 1 }
            }
            fail(problem.message, at: mark)
            return nil
        }
    }
}
