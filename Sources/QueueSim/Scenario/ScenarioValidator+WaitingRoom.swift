/// `waitingRoom:` — the embedded room's settings, latency model and scripted faults.
extension ScenarioValidator {
    mutating func waitingRoomSettings(_ raw: RawWaitingRoom) -> WaitingRoomSettings {
        var room = WaitingRoomSettings()
        room.mode = choice(raw.mode, key: "waitingRoom.mode", default: RoomMode.queue)
        room.abandonedTurns = choice(raw.abandonedTurns, key: "waitingRoom.abandonedTurns", default: .wasted)
        room.eventStart = duration(
            raw.eventStart, key: "waitingRoom.eventStart", default: room.eventStart, allowZero: true)
        if let node = raw.outflow, node.scalarText == nil {
            // A list of changes, or `{ replay: FILE, column: … }` (ScenarioValidator+Outflow).
            outflowSchedule(node, into: &room)
        } else if let outflow = rate(raw.outflow, key: "waitingRoom.outflow") {
            room.outflowPerSecond = outflow
            if let node = raw.outflow { warnBareOutflow(outflow, node) }
        }
        if let secret = raw.secretKey { room.secretKey = nonEmpty(secret, key: "waitingRoom.secretKey") }
        room.tokenValidity = duration(raw.tokenValidity, key: "waitingRoom.tokenValidity", default: room.tokenValidity)
        if let inviteOnly = raw.inviteOnly { room.inviteOnly = inviteOnly.value }
        if let keys = raw.enqueueKeys {
            room.enqueueKeys = feeder(keys.value, at: keys.mark, key: "waitingRoom.enqueueKeys")
        }
        if let codes = raw.inviteCodes {
            if !room.inviteOnly {
                fail(
                    "`waitingRoom.inviteCodes` only matters in an invite-only room; add `inviteOnly: true`",
                    at: codes.mark)
            }
            for (index, code) in codes.elements.enumerated() {
                if code.value.isEmpty { fail("`waitingRoom.inviteCodes[\(index)]` must not be empty", at: code.mark) }
            }
            room.inviteCodes = codes.elements.map(\.value)
        }
        if let latency = raw.latency?.value {
            room.latency = LatencySettings(
                enqueue: duration(latency.enqueue, key: "waitingRoom.latency.enqueue", default: .zero, allowZero: true),
                queuePage: duration(
                    latency.queuePage, key: "waitingRoom.latency.queuePage", default: .zero, allowZero: true),
                protectedApi: duration(
                    latency.protectedApi, key: "waitingRoom.latency.protectedApi", default: .zero, allowZero: true),
                jitter: duration(latency.jitter, key: "waitingRoom.latency.jitter", default: .zero, allowZero: true))
        }
        for (index, fault) in (raw.faults?.elements ?? []).enumerated() {
            if let rule = faultRule(fault, key: "waitingRoom.faults[\(index)]") { room.faults.append(rule) }
        }
        queueItRules(raw, into: &room)
        if let tls = raw.tls { room.tls = roomTLS(tls.value, at: tls.mark) }
        return room
    }

    /// `waitingRoom.tls: { cert: FILE, key: FILE }`, relative to the scenario's folder; the pair
    /// is loaded here, so a missing file or a key that is not the certificate's is an invalid
    /// scenario rather than a room that cannot start.
    private mutating func roomTLS(_ raw: RawRoomTLS, at mark: YamlMark) -> RoomTLSFiles? {
        guard let cert = raw.cert, let key = raw.key else {
            fail("`waitingRoom.tls` needs both `cert: FILE` and `key: FILE` (PEM)", at: mark)
            return nil
        }
        let printable = checkPrintable(cert, key: "waitingRoom.tls.cert")
        guard checkPrintable(key, key: "waitingRoom.tls.key"), printable else { return nil }
        let directory = scenarioDirectory
        let resolve = { (path: String) in path.hasPrefix("/") ? path : PathText.appending(path, to: directory) }
        let files = RoomTLSFiles(certificate: resolve(cert.value), key: resolve(key.value))
        do {
            _ = try RoomTLS.load(certificate: files.certificate, key: files.key)
        } catch {
            let blamed = error.description.hasPrefix(files.key) ? key.mark : cert.mark
            fail("`waitingRoom.tls`: \(error.description)", at: blamed)
            return nil
        }
        return files
    }

    /// The rules imported from a Queue-it event (docs/waiting-room.md): queue-number validity,
    /// max redirects per queue id, unique keys and the SafetyNet variant, each in Queue-it's range.
    private mutating func queueItRules(_ raw: RawWaitingRoom, into room: inout WaitingRoomSettings) {
        if let node = raw.queueNumberValidity,
            let validity = optionalDuration(node, key: "waitingRoom.queueNumberValidity", allowZero: false)
        {
            let range = WaitingRoomSettings.queueNumberValidityRange
            if range.contains(validity) {
                room.queueNumberValidity = validity
            } else {
                fail(
                    "`waitingRoom.queueNumberValidity` must be from 5m to 60m (Queue-it's QueueNumberValidityInMinutes), found \(node.scalarText ?? ScenarioUnits.describe(validity))",
                    at: node.mark)
            }
        }
        if let redirects = raw.maxRedirectsPerQueueId {
            if WaitingRoomSettings.maxRedirectsPerQueueIdRange.contains(redirects.value) {
                room.maxRedirectsPerQueueId = redirects.value
            } else {
                fail(
                    "`waitingRoom.maxRedirectsPerQueueId` must be a whole number from 1 to 20 (Queue-it's MaxNoOfRedirectsPrQueueId), found \(redirects.value)",
                    at: redirects.mark)
            }
        }
        if let unique = raw.uniqueKeys {
            room.uniqueKeys = unique.value
            if unique.value, !room.inviteOnly {
                fail(
                    "`waitingRoom.uniqueKeys` only matters in an invite-only room; add `inviteOnly: true` and `enqueueKeys`",
                    at: unique.mark)
            }
        }
        if let variant = raw.safetyNet {
            room.safetyNet = choice(variant, key: "waitingRoom.safetyNet", default: SafetyNetVariant.normal)
            let everSafetyNet =
                room.mode == .safetynet || room.faults.contains { $0.effect == .mode(.safetynet) }
            if !everSafetyNet {
                fail(
                    "`waitingRoom.safetyNet` only matters when the room is in safetynet mode; add `mode: safetynet` (or a mode fault to it)",
                    at: variant.mark)
            }
        }
    }

    /// `outflow: 3000` is 3,000 per second (rates without a unit are, everywhere), but Queue-it
    /// GO's Max Outflow is per minute, so a number copied from it is 60 times too fast and the
    /// rehearsal passes with tiny waits. The number keeps its documented meaning; the warning
    /// names both readings.
    mutating func warnBareOutflow(_ perSecond: Double, _ node: YamlNode, key: String = "waitingRoom.outflow") {
        guard let text = node.scalarText?.trimmingSpaces, ScenarioUnits.decimal(Substring(text)) != nil else { return }
        warn(
            "`\(key): \(text)` has no unit, so it is read as \(ScenarioUnits.grouped(perSecond))/s (\(ScenarioUnits.grouped(perSecond * 60))/min); Queue-it's Max Outflow is per minute: write \(text)/min if you meant that, or \(text)/s to keep this reading",
            at: node.mark)
    }

    private mutating func faultRule(_ positioned: Positioned<RawFault>, key: String) -> FaultRule? {
        let fault = positioned.value
        let effects: [(String, Bool)] = [
            ("status", fault.status != nil), ("latency", fault.latency != nil), ("reset", fault.reset != nil),
            ("timeout", fault.timeout != nil), ("malformed", fault.malformed != nil),
            ("navigate", fault.navigate != nil),
            ("mode", fault.mode != nil),
        ]
        let present = effects.filter(\.1).map(\.0)
        guard present.count == 1 else {
            let found = present.isEmpty ? "none" : present.map { "`\($0)`" }.joined(separator: " and ")
            fail(
                "\(key) needs exactly one effect (status, latency, reset, timeout, malformed, navigate or mode), found \(found)",
                at: positioned.mark)
            return nil
        }
        let problemsBefore = problems.count
        let from = duration(fault.from, key: "\(key).from", default: .zero, allowZero: true)
        let to = optionalDuration(fault.to, key: "\(key).to", allowZero: false)
        if let to, to <= from, let node = fault.to {
            fail(
                "`\(key).to` must be later than `from` (\(ScenarioUnits.describe(from))), found \(ScenarioUnits.describe(to))",
                at: node.mark)
        }
        var endpoint = choice(fault.endpoint, key: "\(key).endpoint", default: RoomEndpoint.any)
        let rate = fault.rate.flatMap { fraction($0, key: "\(key).rate") } ?? 1
        if fault.jitter != nil, fault.latency == nil, let node = fault.jitter {
            fail("`\(key).jitter` goes with `latency`; this fault has none", at: node.mark)
        }
        let effect: FaultEffect?
        if let status = fault.status {
            if !(100...599).contains(status.value) {
                fail(
                    "`\(key).status` must be an HTTP status from 100 to 599, such as 503, found \(status.value)",
                    at: status.mark)
            }
            effect = .status(status.value)
        } else if let latency = fault.latency {
            let delay = optionalDuration(latency, key: "\(key).latency", allowZero: false)
            let jitter = duration(fault.jitter, key: "\(key).jitter", default: .zero, allowZero: true)
            effect = delay.map { .latency($0, jitter: jitter) }
        } else if let flag = fault.reset ?? fault.timeout ?? fault.malformed {
            if !flag.value {
                fail(
                    "`\(key).\(present[0])` is an effect: write `\(present[0]): true` or remove the fault",
                    at: flag.mark)
            }
            effect = fault.reset != nil ? .reset : fault.timeout != nil ? .timeout : .malformedBody
        } else if let navigate = fault.navigate {
            if fault.endpoint == nil {
                endpoint = .queuePage
            } else if endpoint != .queuePage, let mark = fault.endpoint?.mark {
                fail(
                    "`\(key).navigate` acts on the queue page: expected `endpoint: queuePage`, found `\(endpoint.rawValue)`",
                    at: mark)
            }
            effect = .navigate(choice(navigate, key: "\(key).navigate", default: QueuePageNavigation.close))
        } else if let mode = fault.mode {
            for (name, mark) in [("endpoint", fault.endpoint?.mark), ("rate", fault.rate?.mark)] {
                if let mark {
                    fail("a `mode` fault switches the whole room; `\(name)` does not apply, remove it", at: mark)
                }
            }
            effect = .mode(choice(mode, key: "\(key).mode", default: RoomMode.queue))
        } else {
            effect = nil
        }
        guard problems.count == problemsBefore, let effect else { return nil }
        return FaultRule(from: from, to: to, endpoint: endpoint, rate: rate, effect: effect)
    }
}
