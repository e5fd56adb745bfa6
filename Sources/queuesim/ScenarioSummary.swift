import QueueClientCore
import QueueSim

/// The screen `queuesim validate` prints for a valid scenario: what the run will do, in the
/// terms a launch team checks (URLs, visitor numbers, rates, the room's settings). Enqueue
/// tokens and keys are credentials: only their source is shown, never a value.
struct ScenarioSummary {
    let scenario: Scenario
    /// The checked plan, when the summary is of a run about to happen: its shard, its memory.
    let prepared: PreparedRun?

    init(_ scenario: Scenario, prepared: PreparedRun? = nil) {
        self.scenario = scenario
        self.prepared = prepared
    }

    var text: String {
        var lines = ["\(scenario.sourcePath): valid (scenario format v1)"]
        func row(_ label: String, _ value: String) { lines.append("  " + label.padding(12) + value) }
        row(
            "name",
            "\(scenario.name) (reports in \(scenario.reportsDirectory)), seed \(scenario.seed), \(scenario.clock.rawValue) clock"
        )
        let arrivals = scenario.arrivals
        row("visitors", visitors)
        if let replay = arrivals.replay {
            row("replay", replay.description)  // a row per interval would be hundreds of phases
        } else {
            row("phases", phases.joined(separator: "; "))
        }
        if let cap = arrivals.maxVisitors { row("cap", "at most \(Self.count(cap)) visitors") }
        if arrivals.scale != 1 {
            row("scale", "× \(ScenarioUnits.factor(arrivals.scale)) (arrivals.scale: the phases above are scaled)")
        }
        if !scenario.overrides.isEmpty {
            row("set", scenario.overrides.map { "--set \($0.recorded)" }.joined(separator: " "))
        }
        lines.append("  groups")
        let totalWeight = scenario.groups.reduce(0) { $0 + $1.weight }
        for group in scenario.groups {
            let share = PercentText.of(totalWeight > 0 ? group.weight / totalWeight : 0)
            lines.append(
                "    \(group.name.padding(10)) \(share.padding(6)) flow \(group.flow.rawValue)\(credentials(group))")
            let target = scenario.target.applying(group.overrides)
            var url = "      enqueue \(target.enqueueURLDescription)"
            if case .baseURL = target.endpoint { url += " (connected via \(target.endpointDescription))" }
            lines.append(url)
            if group.flow == .protectedApi {
                lines.append("      protected API \(target.protectedApi ?? "the embedded room's /api/protected")")
            }
            lines += Self.describe(group.behaviour).map { "      " + $0 }
        }
        if let room = scenario.waitingRoom {
            row(
                "room",
                "embedded, mode \(room.mode.rawValue), outflow \(Self.count(Int((room.outflowPerSecond * 60).rounded())))/min "
                    + "(\(Self.number(room.outflowPerSecond))/s)"
                    + room.outflowChanges.map {
                        ", \(Self.count(Int(($0.perSecond * 60).rounded())))/min from \(ScenarioUnits.describe($0.at))"
                    }.joined() + ", event start at \(ScenarioUnits.describe(room.eventStart)), "
                    + "tokens valid \(ScenarioUnits.describe(room.tokenValidity))"
                    + (room.inviteOnly ? ", invite only" : ""))
            if let keys = room.enqueueKeys { row("", "known enqueue keys from \(keys.path), column \(keys.column)") }
            if !room.inviteCodes.isEmpty {
                // Codes are credentials too: counted, never shown.
                row(
                    "",
                    "\(room.inviteCodes.count) invite code\(room.inviteCodes.count == 1 ? "" : "s") admitted on the queue page"
                )
            }
            for fault in room.faults { row("fault", Self.describe(fault)) }
            if room.abandonedTurns == .skipped {
                row("", "turns of visitors silent for 60 s are skipped (abandonedTurns: skipped)")
            }
            // The rules imported from a Queue-it event, where they differ from the room's defaults.
            var rules: [String] = []
            if room.safetyNet != .normal { rules.append("safetyNet \(room.safetyNet.rawValue)") }
            if let validity = room.queueNumberValidity {
                rules.append("queue numbers valid \(ScenarioUnits.describe(validity))")
            }
            if room.maxRedirectsPerQueueId != WaitingRoomSettings.defaultMaxRedirectsPerQueueId {
                rules.append("at most \(room.maxRedirectsPerQueueId) redirects per queue id")
            }
            if room.uniqueKeys { rules.append("each enqueue key admits one enqueue") }
            if !rules.isEmpty { row("", rules.joined(separator: ", ")) }
        } else {
            row("endpoint", scenario.target.endpointDescription)
        }
        // Where each host of `target.hosts` connects (its requests keep the host's name).
        for (index, entry) in scenario.target.hosts.enumerated() {
            row(index == 0 ? "hosts" : "", "\(entry.host) connects to \(Target.describe(entry.endpoint))")
        }
        row(
            "client",
            "poll every \(ScenarioUnits.describe(scenario.client.pollInterval)), give up after \(ScenarioUnits.describe(scenario.client.maxWait)) in the queue"
        )
        for platform in scenario.platforms {
            let client = scenario.client.resolved(for: platform)
            row(
                "",
                "\(platform.rawValue): \(client.sdkVersion), \(Self.describeTimeouts(platform, client: client, set: scenario.client.requestTimeout != nil)), failed queue page: \(Self.describeRetry(client.queuePageRetry))"
            )
        }
        let stop =
            scenario.run.duration.map { "stop after \(ScenarioUnits.describe($0))" }
            ?? "until every visitor has finished"
        // run.concurrency holds visitors back on the wall clock only: on the virtual clock it
        // would read as a cap the memory row below exceeds.
        let limit =
            scenario.clock == .wall
            ? "at most \(Self.count(scenario.run.concurrency)) visitors in flight at once (run.concurrency)"
            : "no limit on visitors in flight (virtual clock)"
        row("run", "\(stop), \(limit)")
        if let startAt = scenario.run.startAt {
            row("start", "waits for \(StartInstant.text(startAt)) (common start)")
        }
        if let prepared {
            let shard = prepared.options.shard
            if !shard.isWhole {
                row(
                    "shard",
                    "\(shard): \(Self.count(prepared.summary.visitorCount)) of \(Self.count(prepared.summary.plannedVisitorCount)) visitors (number mod \(shard.count) = \(shard.index))"
                )
            }
            let estimate = prepared.memoryEstimate
            row(
                "memory",
                "estimated \(MemoryBudget.describe(estimate.bytes)), for up to \(Self.count(estimate.peakInFlight)) visitors in flight at once"
                    + (shard.isWhole ? "" : " in this shard")
                    + " (arrivals within one longest visit\(scenario.clock == .wall ? ", at most run.concurrency" : ""))"
            )
        }
        if let cap = scenario.run.maxRequestRate {
            row("requests", "at most \(Self.rate(cap)) over all visitors (run.maxRequestRate)")
        }
        row(
            "thresholds",
            scenario.thresholds.isEmpty
                ? "none (exit code 0 whenever the run finishes)"
                : scenario.thresholds.map { $0.source + ($0.isGuardrail ? " (stops the run, exit 4)" : "") }
                    .joined(separator: "; "))
        if let estimate = FluidEstimate.of(prepared?.scenario ?? scenario, scale: prepared?.summary.scale ?? 1) {
            for (index, line) in estimate.lines.enumerated() { row(index == 0 ? "estimate" : "", line) }
        }
        return lines.joined(separator: "\n")
    }

    /// `1,900 planned, arriving over 15s (uniform), peak 943 in one second (burst included),
    /// 150/s in steady phases`: a burst is an instant, so the peak rate alone would leave it out.
    private var visitors: String {
        let arrivals = scenario.arrivals
        let over =
            arrivals.plannedDuration == .zero
            ? "arriving at once" : "arriving over \(ScenarioUnits.describe(arrivals.plannedDuration))"
        let hasBurst = arrivals.phases.contains {
            if case .burst(let count) = $0 { return count > 0 }
            return false
        }
        // `--visitors` scales every rate and burst: the count and the peaks are the run's, or the
        // row would contradict the memory row's visitors in flight.
        let scale = prepared?.summary.scale ?? 1
        let planned = prepared.map { $0.summary.plannedVisitorCount } ?? arrivals.plannedVisitorCount
        let steady = arrivals.peakRatePerSecond * scale
        var peak = "peak \(Self.rate(steady))"
        if hasBurst {
            peak = "peak \(Self.count(Int((arrivals.busiestSecond * scale).rounded()))) in one second (burst included)"
            if steady > 0 { peak += ", \(Self.rate(steady)) in steady phases" }
        }
        let scaled = scale == 1 ? "" : " (--visitors scales the phases below)"
        return "\(Self.count(planned)) planned\(scaled), \(over) (\(arrivals.process.rawValue)), \(peak)"
    }

    private var phases: [String] {
        var at = Duration.zero
        return scenario.arrivals.phases.map { phase in
            defer { at += phase.duration }
            switch phase {
            case .steady(let duration, let rate, let rampTo):
                if let rampTo {
                    return "\(ScenarioUnits.describe(duration)) ramp \(Self.rate(rate)) → \(Self.rate(rampTo))"
                }
                return "\(ScenarioUnits.describe(duration)) at \(Self.rate(rate))"
            case .burst(let count): return "burst of \(Self.count(count)) at \(ScenarioUnits.describe(at))"
            case .pause(let duration): return "pause \(ScenarioUnits.describe(duration))"
            }
        }
    }

    private func credentials(_ group: VisitorGroup) -> String {
        func source(_ value: VisitorValue?, _ name: String) -> String {
            switch value {
            case nil: return ""
            case .literal: return ", \(name): literal (hidden)"
            case .feeder(let feeder):
                return ", \(name) from \(feeder.path) column \(feeder.column) (\(feeder.order.rawValue))"
            }
        }
        // `ios`, or a mix: `ios 60%, android 40%` (each visitor's own is drawn from the seed).
        let platform = group.platforms(client: scenario.client).description
        return ", \(platform)" + source(group.enqueueKey, "enqueue key") + source(group.enqueueToken, "enqueue token")
            + source(group.inviteCode, "invite code")
    }

    static func describe(_ fault: FaultRule) -> String { fault.summary }

    /// `patience`, `comeback`, `afterPass` in words (nothing for a group without them).
    static func describe(_ behaviour: VisitorBehaviour) -> [String] {
        [
            behaviour.patience.map { "patience \($0.summary)" }, behaviour.comeback.map { "comeback: \($0.summary)" },
            behaviour.afterPass.map { "after passing: \($0.summary)" },
            behaviour.noShow.flatMap { $0 > 0 ? "no-shows \(PercentText.of($0)) (leave at once, turn unused)" : nil },
        ].compactMap { $0 }
    }

    static func rate(_ perSecond: Double) -> String { "\(number(perSecond))/s" }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? count(Int(value)) : String((value * 10).rounded() / 10)
    }

    /// 12,345
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// Each call's own timeout, as the run applies it (docs/client-core.md), unless
    /// `client.requestTimeout` replaces them all with a whole-exchange limit.
    static func describeTimeouts(_ platform: ClientPlatform, client: ResolvedClientSettings, set: Bool) -> String {
        let limit = ScenarioUnits.describe(client.requestTimeout)
        if set { return "request timeout \(limit) (whole exchange, every call)" }
        switch platform {
        case .ios: return "request timeout \(limit) without progress (enqueue and queue pages)"
        case .android:
            return
                "enqueue timeout \(limit) without progress; queue pages \(ScenarioUnits.describe(ClientPlatform.chromiumConnectTimeout)) to connect, then maxWait"
        }
    }

    static func describeRetry(_ retry: QueuePageRetry) -> String {
        switch retry {
        case .none: "error at once (iOS)"
        case .reload: "reload at once, then after 2, 4, 8, 16, 30 s, then error (Android)"
        case .poll: "poll again until maxWait"
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

}
