import Foundation
import QueueClientCore

/// `visitors:` — the groups, their platforms, flows, enqueue keys, tokens and invite codes, and
/// target overrides.
extension ScenarioValidator {
    mutating func groups(
        _ raw: YamlList<Positioned<RawGroup>>?, target: Target?, clientPlatforms: PlatformMix
    ) -> [VisitorGroup]? {
        guard let raw else {
            // No `visitors:` at all: everybody is one plain group (a broken one was reported).
            guard let written = root["visitors"] else { return [VisitorGroup(name: "default")] }
            if written.isNull {
                fail(
                    "`visitors` is empty; expected a list of groups such as - { name: app, weight: 1 }, or no `visitors:` at all",
                    at: keyMark("visitors", in: root))
            }
            return nil
        }
        if raw.elements.isEmpty, root["visitors"]?.content == .sequence([]) {
            fail("`visitors` needs at least one group, such as - { name: app, weight: 1 }", at: raw.mark)
        }
        let problemsBefore = problems.count
        var groups: [VisitorGroup] = []
        var names: [String: YamlMark] = [:]
        for (index, positioned) in raw.elements.enumerated() {
            let group = positioned.value
            let key = "visitors[\(index)]"
            guard let name = group.name else {
                fail(
                    "missing the required key `name` in \(key); every group needs a name for the reports",
                    at: positioned.mark)
                continue
            }
            if name.value.trimmingSpaces.isEmpty || name.value == "all" {
                fail(
                    "`\(key).name` must be a non-empty name other than `all` (reports use `all` for the total), found \"\(name.value)\"",
                    at: name.mark)
            }
            if let first = names[name.value] {
                fail(
                    "a second group named `\(name.value)` (the first is at \(first)); group names must be unique",
                    at: name.mark)
            }
            names[name.value] = name.mark
            checkName(name, key: "\(key).name")
            var weight = 1.0
            if let rawWeight = group.weight {
                if rawWeight.value <= 0 || rawWeight.value > ScenarioLimits.largestWeight {
                    fail(
                        "`\(key).weight` must be more than 0 and at most 1000000000, found \(rawWeight.value)",
                        at: rawWeight.mark)
                }
                weight = rawWeight.value
            }
            if let endpoint = group.endpoint {
                fail("a group cannot override `endpoint`; every group talks to `target.endpoint`", at: endpoint.mark)
            }
            let flow = choice(group.flow, key: "\(key).flow", default: VisitorFlow.run)
            let overrides = self.overrides(
                customerId: group.customerId, waitingRoomId: group.waitingRoomId,
                waitingRoomDomain: group.waitingRoomDomain,
                queuePathPrefix: group.queuePathPrefix, layoutName: group.layoutName, language: group.language,
                protectedApi: group.protectedApi, prefix: key)
            if flow == .protectedApi, let target, target.endpoint != .embedded,
                overrides.protectedApi ?? target.protectedApi == nil
            {
                fail(
                    "`flow: protectedApi` needs a `protectedApi` URL (in `target` or this group) when the endpoint is not embedded",
                    at: group.flow?.mark ?? positioned.mark)
            }
            let enqueueKey = group.enqueueKey.flatMap { visitorValue($0, key: "\(key).enqueueKey") }
            let enqueueToken = group.enqueueToken.flatMap { visitorValue($0, key: "\(key).enqueueToken") }
            if let token = group.enqueueToken, group.enqueueKey != nil {
                fail(
                    "a group gives either `enqueueKey` or `enqueueToken`, not both (the SDK sends one)", at: token.mark)
            }
            let platforms = group.platform.flatMap {
                platformMix($0, key: "\(key).platform", client: clientPlatforms.shares[0].platform)
            }
            let inviteCode = group.inviteCode.flatMap { visitorValue($0, key: "\(key).inviteCode") }
            if let code = group.inviteCode,
                (platforms ?? clientPlatforms).shares.contains(where: { $0.platform != .android })
            {
                fail(
                    "`\(key).inviteCode` is Android's (its SDK sends it as `code=` on the queue URL; iOS has none); give this group `platform: android`",
                    at: code.mark)
            }
            var visitorGroup = VisitorGroup(
                name: name.value, weight: weight, flow: flow, enqueueKey: enqueueKey, enqueueToken: enqueueToken,
                overrides: overrides, inviteCode: inviteCode, platform: platforms?.single)
            if let platforms, platforms.isMixed { visitorGroup.platformMix = platforms }
            visitorGroup.connections = connectionModel(group.connections, key: "\(key).connections")
            visitorGroup.apiUserAgent = apiUserAgent(group.apiUserAgent, key: "\(key).apiUserAgent")
            visitorGroup.behaviour = behaviour(
                patience: group.patience, comeback: group.comeback, afterPass: group.afterPass, key: key)
            if let noShow = group.noShow, !noShow.isNull {
                visitorGroup.behaviour.noShow = fraction(noShow, key: "\(key).noShow", allowZero: true)
            }
            if let afterPass = group.afterPass, visitorGroup.behaviour.afterPass != nil, let target,
                target.endpoint != .embedded, overrides.protectedApi ?? target.protectedApi == nil
            {
                fail(
                    "`\(key).afterPass` calls the protected API: give a `protectedApi` URL (in `target` or this group) when the endpoint is not embedded",
                    at: afterPass.mark)
            }
            groups.append(visitorGroup)
        }
        return problems.count == problemsBefore && !groups.isEmpty ? groups : nil
    }

    private mutating func visitorValue(_ raw: Positioned<RawVisitorValue>, key: String) -> VisitorValue? {
        switch raw.value {
        case .literal(let text):
            if text.isEmpty { fail("`\(key)` must not be empty", at: raw.mark) }
            return .literal(text)
        case .feeder(let feeder):
            return self.feeder(feeder, at: raw.mark, key: key).map { .feeder($0) }
        }
    }

    /// `{ csv: FILE, column: NAME, order: … }`: the file must exist (relative to the scenario's
    /// folder) and have the column; the resolved path is kept.
    mutating func feeder(_ raw: RawFeeder, at mark: YamlMark, key: String) -> CSVFeeder? {
        let order = choice(raw.order, key: "\(key).order", default: FeederOrder.sequence)
        guard let csv = raw.csv, let column = raw.column else {
            fail("`\(key)` as a CSV feeder needs both `csv: FILE` and `column: NAME`", at: mark)
            return nil
        }
        let csvPrintable = checkPrintable(csv, key: "\(key).csv")
        guard checkPrintable(column, key: "\(key).column"), csvPrintable else { return nil }
        let path =
            csv.value.hasPrefix("/") ? csv.value : PathText.appending(csv.value, to: scenarioDirectory)
        if let problem = ScenarioLimits.feederSizeProblem(path: path, named: csv.value) {
            fail("`\(key).csv`: \(problem)", at: csv.mark)
            return nil
        }
        do {
            let values = try CSVColumnReader.read(path: path, column: column.value)
            if values.isEmpty {
                fail("`\(key)`: \(csv.value) has a header but no rows", at: csv.mark)
                return nil
            }
        } catch {
            switch error {
            case .missingColumn: fail("`\(key).column`: \(error)", at: column.mark)
            default: fail("`\(key).csv`: \(error)", at: csv.mark)
            }
            return nil
        }
        if feederMarks[path] == nil { feederMarks[path] = csv.mark }
        return CSVFeeder(path: path, column: column.value, order: order)
    }
}

extension ScenarioValidator {
    /// A header value: not empty, and no control character (a line break would end the header
    /// and start another).
    mutating func apiUserAgent(_ raw: Positioned<String>?, key: String) -> String? {
        guard let raw else { return nil }
        if raw.value.trimmingSpaces.isEmpty {
            fail("`\(key)` must not be empty (leave it out for the stack's own user agent)", at: raw.mark)
            return nil
        }
        if let bad = raw.value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fail(
                "`\(key)` is sent as the `User-Agent` header, which cannot hold a control character (\(Self.describeCharacter(Character(bad))))",
                at: raw.mark)
            return nil
        }
        return raw.value
    }
}
