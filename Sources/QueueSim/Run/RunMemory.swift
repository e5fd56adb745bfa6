import Foundation
import QueueClientCore

/// How much memory a run may use (`--max-memory`), and where the default comes from.
package struct MemoryBudget: Sendable, Equatable {
    package var bytes: Int
    /// How the budget was set, for messages: "--max-memory 2GiB", "80% of this machine's 24 GiB".
    package var origin: String

    package init(bytes: Int, origin: String) {
        self.bytes = bytes
        self.origin = origin
    }

    /// The share of the memory available to the process that a run may plan to use by default:
    /// the rest is for the kernel's socket buffers and page cache, and for the estimate's error.
    static let defaultShare = 0.8

    /// 80 % of what the process can have: the machine's memory, or the cgroup's limit when a
    /// container (a Kubernetes pod, a CI runner) sets a lower one.
    package static func machineDefault() -> MemoryBudget {
        let physical = Self.physicalMemory()
        let limit = Self.cgroupLimit().map { min($0, physical) } ?? physical
        let whose = limit < physical ? "this container's limit of" : "this machine's"
        return MemoryBudget(
            bytes: Int(Double(limit) * defaultShare), origin: "80% of \(whose) \(Self.describe(limit))")
    }

    /// `--max-memory` text: a whole number with `KiB`, `MiB`, `GiB` or `TiB` (or K/M/G/T, also
    /// binary), or plain bytes.
    package static func parse(_ text: String) -> MemoryBudget? {
        let units: [(String, Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
            ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40),
        ]
        var number = Substring(text)
        var scale = 1
        for (suffix, size) in units where text.hasSuffix(suffix) {
            number = number.dropLast(suffix.count)
            scale = size
            break
        }
        guard let value = Int(number), value > 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        return MemoryBudget(bytes: bytes, origin: "--max-memory \(text)")
    }

    static func physicalMemory() -> Int {
        Int(clamping: ProcessInfo.processInfo.physicalMemory)
    }

    /// cgroup v2's `memory.max` for this process (`max` means none).
    static func cgroupLimit() -> Int? {
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return nil }
        let path = "/sys/fs/cgroup" + line.dropFirst(3) + "/memory.max"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "512 MiB", "1.5 GiB".
    package static func describe(_ bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }
}

/// An upper estimate of a run's memory, made before anything runs (docs/scenarios.md,
/// "Limits"): a base, a share per visitor in flight at once, a few dozen bytes per visitor
/// (the room's ticket, the row spool's index), feeder files about three times their size
/// once split into strings, and 24 KiB per group.
///
/// Per visitor in flight, by clock and by what the visitors carry (docs/benchmarks.md, "Ten
/// million visitors"): a virtual run's waiting iOS visitor measured 242–292 bytes above the
/// process's baseline (peak RSS over the peak waiting), so a plan whose every visitor is as
/// lean (`carriesLittle`) is estimated at 512 bytes; an Android visitor measured 558 (its queue
/// URLs carry its id and do not pack), and enqueue keys, tokens and codes per visitor, the
/// hybrid flow and behaviours add boxes of their own: 1 KiB for the others. A wall-clock
/// visitor also holds its connections' buffers: 2 KiB.
package struct RunMemoryEstimate: Sendable, Equatable {
    package var visitors: Int
    /// The most visitors that can be in flight at once (see `VisitorPlan.preflight`).
    package var peakInFlight: Int
    package var feederFileBytes: Int
    package var clock: ClockKind
    /// Made from the phases before the plan was walked: a floor, not the estimate itself.
    package var isFloor = false
    /// Every visitor is a lean one (`carriesLittle`).
    package var leanVisitors = false
    /// Visitors who start together (a burst; `ArrivalSchedule.inFlightFloor` over a second):
    /// their first exchanges are all in flight at once, so a lean visitor among them is
    /// counted at the full virtual figure, not the lean one. Measured (docs/sweep.md,
    /// "Memory"): a burst of 200,000 iOS visitors peaked at 929 bytes a visitor above the
    /// process's baseline, the steady 500,000 of bench/virtual-10m.sh's shape at 273 per waiting
    /// visitor. Zero where nobody set it (`run`'s own estimate does not yet).
    package var startingTogether = 0
    /// The scenario's groups: each costs its figures, its metrics.prom series and its report
    /// rows however few visitors it has. Zero where nobody set it (the floor checked before
    /// the plan is walked).
    package var groups = 0

    package init(
        visitors: Int, peakInFlight: Int, feederFileBytes: Int, clock: ClockKind, isFloor: Bool = false,
        leanVisitors: Bool = false
    ) {
        self.visitors = visitors
        self.peakInFlight = peakInFlight
        self.feederFileBytes = feederFileBytes
        self.clock = clock
        self.isFloor = isFloor
        self.leanVisitors = leanVisitors
    }

    static let baseBytes = 64 << 20
    static func bytesPerVisitorInFlight(_ clock: ClockKind, lean: Bool = false) -> Int {
        switch clock {
        case .virtual: lean ? 512 : 1024
        case .wall: 2048
        }
    }

    /// Whether every visitor of the scenario is as small as the measured iOS visitor: iOS only,
    /// the `run` or `tryPass` flow, no enqueue key, token or invite code, no behaviour.
    static func carriesLittle(_ scenario: Scenario) -> Bool {
        scenario.groups.allSatisfy { group in
            group.platforms(client: scenario.client).shares.allSatisfy { $0.platform == .ios }
                && group.flow != .protectedApi && group.enqueueKey == nil && group.enqueueToken == nil
                && group.inviteCode == nil && group.behaviour == VisitorBehaviour()
        }
    }
    static let bytesPerVisitor = 64
    static let feederExpansion = 3
    /// Measured (bench/memory-estimate.sh, docs/benchmarks.md "The memory estimate against
    /// measured peaks"): launch.yaml's 1,900 visitors over 2,000 groups peaked 36 MiB above one
    /// group's run, about 19 KiB a group, and 4,000 groups 17 KiB a group.
    static let bytesPerGroup = 24 << 10

    package var bytes: Int {
        let together = min(max(0, startingTogether), peakInFlight)
        let inFlight =
            (peakInFlight - together) * Self.bytesPerVisitorInFlight(clock, lean: leanVisitors) + together
            * Self.bytesPerVisitorInFlight(clock)
        return Self.baseBytes + visitors * Self.bytesPerVisitor + inFlight + feederFileBytes * Self.feederExpansion
            + max(0, groups) * Self.bytesPerGroup
    }

    /// How long one visitor can stay in flight at most: every enqueue attempt timing out with
    /// the machine's backoff (five attempts, 1+2+4+8 s apart), the longest wait, a final call,
    /// once per allowed restart.
    static func longestVisit(_ client: ClientSettings, requestTimeout: Duration) -> Duration {
        let enqueue = requestTimeout * 5 + .seconds(15)
        let once = enqueue + client.maxWait + requestTimeout * 2
        return once * (client.maxRestarts + 1)
    }

    /// Refuses a run whose estimate is over `budget`, saying what to change.
    package func check(against budget: MemoryBudget) throws(RunMemoryError) {
        guard bytes > budget.bytes else { return }
        throw RunMemoryError(estimate: self, budget: budget)
    }
}

package struct RunMemoryError: Error, Equatable, CustomStringConvertible {
    package var estimate: RunMemoryEstimate
    package var budget: MemoryBudget

    package var description: String {
        var parts = [
            estimate.isFloor
                ? "about \(estimate.visitors) visitors, at least \(estimate.peakInFlight) in flight at once"
                : "\(estimate.visitors) visitors, up to \(estimate.peakInFlight) in flight at once"
        ]
        if estimate.feederFileBytes > 0 {
            parts.append("\(MemoryBudget.describe(estimate.feederFileBytes)) of feeder files")
        }
        // Named where the groups' share is worth a mention (a MiB or more: 43 groups).
        if estimate.groups * RunMemoryEstimate.bytesPerGroup >= 1 << 20 {
            parts.append("\(estimate.groups) groups")
        }
        return
            "this run would need \(estimate.isFloor ? "at least" : "about") \(MemoryBudget.describe(estimate.bytes)) of memory (\(parts.joined(separator: ", "))), more than its budget of \(MemoryBudget.describe(budget.bytes)) (\(budget.origin)); lower the visitor count or the time a visitor can stay (client.maxWait), or raise the budget with --max-memory"
    }
}
