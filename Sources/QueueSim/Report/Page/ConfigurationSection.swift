/// The page's "Rehearsed configuration": what the room, the clients and the arrivals were, at
/// the top of the page, so two reports of an outflow search differ where their runs did.
/// Everything comes from `RunConfiguration`, which holds no credential.
enum ConfigurationSection {
    /// - Parameter groupsTable: `groupsTable(configuration.groups)` made ahead (a recorder
    ///   makes it while the run goes on: with 2,000 groups it was a third of the page's work
    ///   at the end, issue 51); nil: made here.
    static func render(_ configuration: RunConfiguration?, connections: String?, groupsTable: String? = nil) -> String {
        var html = "<section id=\"configuration\"><h2>Rehearsed configuration</h2>\n"
        guard let configuration else {
            return html
                + "<p>Not recorded: this report's <code>run.json</code> (or a merged shard's <code>shard.json</code>) is from an older queuesim.</p></section>\n"
        }
        var facts: [(String, String)] = []
        if let room = configuration.room {
            facts.append(("room mode", room.mode))
            // Per minute as recorded (no round trip through per second): a plain rate reads as
            // it always has; a schedule adds each later rate, as `validate` says it.
            let changes = (room.outflowSchedule ?? []).dropFirst()
            facts.append(
                (
                    changes.isEmpty ? "outflow" : "outflow (scheduled)",
                    "\(ScenarioUnits.grouped(room.outflowPerMinute))/min"
                        + changes.map {
                            ", \(ScenarioUnits.grouped($0.perMinute))/min from \(ScenarioUnits.describe(.milliseconds($0.atMs)))"
                        }.joined()
                ))
            facts.append(("event start", Durations.text(milliseconds: room.eventStartMs)))
            facts.append(("token validity", Durations.text(milliseconds: room.tokenValidityMs)))
            facts.append(("secret key", room.secretKeyIsDefault ? "the public default (dev-secret)" : "set (redacted)"))
            if room.inviteOnly { facts.append(("invite only", "yes, \(room.inviteCodes) invite code(s)")) }
            if room.abandonedTurns == AbandonedTurns.skipped.rawValue {
                facts.append(("turns of visitors who left", "skipped (after 60 s of silence)"))
            }
            facts += queueItRules(room)
            let latency = ["enqueue", "queue_page", "protected_api", "jitter"].compactMap { key in
                room.latencyMs[key].flatMap {
                    $0 > 0 ? "\(key.replacingOccurrences(of: "_", with: " ")) \(Durations.text(milliseconds: $0))" : nil
                }
            }
            if !latency.isEmpty { facts.append(("modelled latency", latency.joined(separator: ", "))) }
        } else {
            facts.append(
                ("room", "a real endpoint at \(configuration.target.endpoint): its settings are not known to queuesim"))
        }
        facts.append(
            ("customer / waiting room", "\(configuration.target.customerId) / \(configuration.target.waitingRoomId)"))
        if let api = configuration.target.protectedApi { facts.append(("protected API", api)) }
        if let connections { facts.append(("connections", connections)) }
        let arrivals = configuration.arrivals
        facts.append(
            (
                "arrivals",
                "\(arrivals.process): " + arrivals.phases.joined(separator: ", ")
                    + (arrivals.maxVisitors.map { ", at most \($0) visitors" } ?? "")
                    + (arrivals.scale.flatMap {
                        $0 == 1 ? nil : " (scaled × \(ScenarioUnits.factor($0)) by arrivals.scale)"
                    }
                        ?? "")
            ))
        if let planned = arrivals.plannedVisitors { facts.append(("planned visitors", String(planned))) }
        let run = configuration.run
        facts.append(
            (
                "run",
                "\(run.clock) clock, seed \(run.seed), concurrency \(run.concurrency)"
                    + (run.durationMs.map { ", hard stop after \(Durations.text(milliseconds: $0))" } ?? "")
                    + (run.startAt.map { ", common start \($0)" } ?? "")
            ))
        let overrides = configuration.overrides.sorted { $0.key < $1.key }
        facts.append(
            (
                "overrides",
                overrides.isEmpty
                    ? "none" : overrides.map { "--\(optionName($0.key)) \($0.value)" }.joined(separator: " ")
            ))
        if let set = configuration.set, !set.isEmpty {
            facts.append(
                (
                    "scenario values set",
                    set.map { "--set \($0)" }.joined(separator: " ")
                        + " (applied to the file before it was read; its SHA-256 is the file's)"
                ))
        }
        html += "<dl>"
        for (term, value) in facts { html += "<dt>\(HTML.escape(term))</dt><dd>\(HTML.escape(value))</dd>" }
        html += "</dl>\n"
        if let room = configuration.room, !room.faults.isEmpty {
            html += "<h3>Scripted faults</h3><ul>"
            html += room.faults.map { "<li>\(HTML.escape($0.summary))</li>" }.joined()
            html += "</ul>\n"
        }
        html += groupsTable ?? Self.groupsTable(configuration.groups)
        if !configuration.feeders.isEmpty {
            html +=
                "<h3>Feeders</h3><div class=\"scroll\"><table><tr><th>file</th><th>column</th><th>order</th><th>read by</th></tr>\n"
            for feeder in configuration.feeders {
                html +=
                    "<tr><td><code>\(HTML.escape(feeder.csv))</code></td><td>\(HTML.escape(feeder.column))</td><td>\(HTML.escape(feeder.order))</td><td>\(HTML.escape(feeder.usedBy.joined(separator: ", ")))</td></tr>\n"
            }
            html += "</table></div>\n"
        }
        if !configuration.environment.isEmpty {
            html += "<h3>From the environment</h3><ul>"
            for entry in configuration.environment {
                let source =
                    entry.from == "environment" ? "from the environment" : "its default (the variable was not set)"
                html +=
                    "<li><code>${\(HTML.escape(entry.variable))}</code> in <code>\(HTML.escape(entry.key))</code> (line \(entry.line)): \(source)</li>"
            }
            html += "</ul>\n"
        }
        return html + "</section>\n"
    }

    /// The "Visitor groups" table: a row (and its detail rows) per group.
    static func groupsTable(_ groups: [RunConfiguration.GroupEntry]) -> String {
        var html = """
            <h3>Visitor groups</h3><div class="scroll"><table><tr><th>group</th><th>share</th><th>flow</th><th>platform</th><th>connections</th><th>max wait</th><th>poll</th><th>request timeout</th><th>max restarts</th><th>enqueue key / token</th></tr>

            """
        for group in groups {
            let share = SVGChart.compact(group.share * 100) + "% (weight \(SVGChart.compact(group.weight)))"
            let credentials =
                [
                    group.enqueueKey.map { "key \($0)" }, group.enqueueToken.map { "token \($0)" },
                    group.inviteCode.map { "invite \($0)" },
                ]
                .compactMap { $0 }.joined(separator: "; ")
            let cells = [
                group.name, share, group.flow, "\(group.platform) (SDK \(group.sdkVersion))", group.connections,
                Durations.text(milliseconds: group.maxWaitMs), Durations.text(milliseconds: group.pollIntervalMs),
                Durations.text(milliseconds: group.requestTimeoutMs), String(group.maxRestarts),
                credentials.isEmpty ? "–" : credentials,
            ]
            html += "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
            if !group.targetOverrides.isEmpty {
                let text = group.targetOverrides.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                html +=
                    "<tr><td></td><td colspan=\"9\">overrides \(HTML.escape(text.joined(separator: ", ")))</td></tr>\n"
            }
            let behaviour = [
                group.patience.map { "patience \($0)" }, group.comeback.map { "comeback: \($0)" },
                group.afterPass.map { "after passing: \($0)" },
                group.noShow.map { "no-shows \(SVGChart.compact($0 * 100))% (their turn goes unused)" },
            ].compactMap { $0 }
            if !behaviour.isEmpty {
                html += "<tr><td></td><td colspan=\"9\">\(HTML.escape(behaviour.joined(separator: "; ")))</td></tr>\n"
            }
        }
        return html + "</table></div>\n"
    }

    /// The rules imported from a Queue-it event that the scenario sets (docs/waiting-room.md).
    private static func queueItRules(_ room: RunConfiguration.RoomEntry) -> [(String, String)] {
        var facts: [(String, String)] = []
        if let minutes = room.queueNumberValidityMinutes {
            facts.append(
                ("queue-number validity", ScenarioUnits.describe(.milliseconds(Int64((minutes * 60_000).rounded())))))
        }
        if let redirects = room.maxRedirectsPerQueueId {
            facts.append(("max redirects per queue id", String(redirects)))
        }
        if room.uniqueKeys == true { facts.append(("unique keys", "yes: an enqueue key admits one enqueue")) }
        if let variant = room.safetyNet { facts.append(("SafetyNet variant", variant)) }
        return facts
    }

    /// `max_memory` → `max-memory`: the option as typed.
    private static func optionName(_ key: String) -> String { key.replacingOccurrences(of: "_", with: "-") }
}

/// Durations for people, written as the end screen writes them (`32m 54s`, `850ms`, `2.5s`,
/// `1h 5m`) — never `1974271 ms`.
enum Durations {
    static func text(milliseconds: Int64) -> String { ThresholdTable.formatMilliseconds(Double(milliseconds)) }

    static func text(milliseconds: UInt64) -> String { ThresholdTable.formatMilliseconds(Double(milliseconds)) }
}
