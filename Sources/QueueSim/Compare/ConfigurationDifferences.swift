/// What differs in what ran between the base run(s) and the new one, each named once above
/// compare's table: the seed, the scenario file's SHA-256, every `--set`, every other
/// command-line override (`--visitors`, `--duration`, …), the room's outflow as it ran (a
/// `${OUTFLOW}` from the environment changes it without changing the file), the queuesim
/// build, and the visitor count. A difference read without these is a difference of unknown
/// cause; with them, the reader knows whether a `--set` or the seed made it.
package enum ConfigurationDifferences {
    /// One line per difference: `seed 7 → 8`, `--set waitingRoom.outflow: not set → 216/min`.
    /// Several bases' values are listed together (`seed 7, 8, 9 → 12`).
    package static func lines(bases: [ComparedRun], new: ComparedRun) -> [String] {
        let runs = bases + [new]
        var aspects: [(label: String, value: (ComparedRun) -> String?)] = [
            ("seed", { String($0.seed) }),
            ("scenario file SHA-256", { String($0.scenarioSHA256.prefix(12)) + "…" }),
        ]
        for key in ordered(runs.flatMap { setValues($0).map(\.key) }) {
            aspects.append(("--set \(key)", { run in setValues(run).last { $0.key == key }?.value }))
        }
        let overrides = runs.flatMap { ($0.configuration?.overrides ?? [:]).keys }
        for key in ordered(overrides.sorted()) where key != "seed" && key != "clock" {
            let option = "--" + key.replacingOccurrences(of: "_", with: "-")
            aspects.append((option, { $0.configuration?.overrides[key] }))
        }
        aspects.append(("room outflow", { run in run.configuration?.room.map { outflow($0.outflowPerMinute) } }))
        aspects += roomRules
        for name in ordered(runs.flatMap { ($0.configuration?.groups ?? []).map(\.name) }) {
            aspects.append(
                (
                    "group \(name) noShow",
                    { run in
                        run.configuration?.groups.first { $0.name == name }?.noShow.map {
                            ThresholdTable.trimmed($0 * 100, decimals: 2) + "%"
                        }
                    }
                ))
        }
        aspects.append(("queuesim", { $0.queuesimVersion }))
        aspects.append(("visitors", { String($0.measurements.visitorCount) }))
        return aspects.compactMap { aspect in
            let before = ordered(bases.map { aspect.value($0) ?? "not set" })
            let after = aspect.value(new) ?? "not set"
            guard before != [after] else { return nil }
            return "\(aspect.label) \(before.joined(separator: ", ")) → \(after)"
        }
    }

    /// The embedded room's Queue-it rules as they ran, defaults spelt out; none against a real
    /// endpoint (its rules are not recorded).
    private static var roomRules: [(label: String, value: (ComparedRun) -> String?)] {
        [
            (
                "queue-number validity",
                { run in
                    run.configuration?.room.map { room in
                        room.queueNumberValidityMinutes.map { ThresholdTable.trimmed($0, decimals: 2) + " min" }
                            ?? "for ever"
                    }
                }
            ),
            (
                "max redirects per queue id",
                { run in
                    run.configuration?.room.map {
                        String($0.maxRedirectsPerQueueId ?? WaitingRoomSettings.defaultMaxRedirectsPerQueueId)
                    }
                }
            ),
            ("unique keys", { run in run.configuration?.room.map { $0.uniqueKeys == true ? "yes" : "no" } }),
            (
                "SafetyNet variant",
                { run in run.configuration?.room.map { $0.safetyNet ?? "none (no safetynet mode)" } }
            ),
        ]
    }

    /// A run's `--set KEY=VALUE` overrides, in order (a later one for a key wins).
    private static func setValues(_ run: ComparedRun) -> [(key: String, value: String)] {
        (run.configuration?.set ?? []).map { text in
            guard let equals = text.firstIndex(of: "=") else { return (text, "") }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    /// Each value once, in first-seen order.
    private static func ordered(_ values: [String]) -> [String] {
        var seen: [String] = []
        for value in values where !seen.contains(value) { seen.append(value) }
        return seen
    }

    /// `1,200/min`, `216/min`, `0.5/min`.
    private static func outflow(_ perMinute: Double) -> String {
        let whole = perMinute.rounded()
        guard abs(perMinute - whole) < 1e-9 else { return "\(ThresholdTable.trimmed(perMinute, decimals: 2))/min" }
        let digits = String(Int64(whole))
        var grouped = ""
        for (offset, digit) in digits.reversed().enumerated() {
            if offset > 0, offset % 3 == 0 { grouped.insert(",", at: grouped.startIndex) }
            grouped.insert(digit, at: grouped.startIndex)
        }
        return grouped + "/min"
    }
}
