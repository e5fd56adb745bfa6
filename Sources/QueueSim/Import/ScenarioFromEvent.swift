/// Writes a scenario from a Queue-it event: the embedded room set up as the real one is, each
/// key saying the field it came from, and every field the room does not model (or models
/// differently) named in a `# not modelled:` line and a warning. The room's secret never
/// appears: `secretKey` is an environment reference.
///
/// The run's second 0 is `PreQueueStartTime` when the event has one (and it is not after the
/// event start), else `EventStartTime`; `eventStart` is the event start on that clock.
package struct ScenarioFromEvent: Sendable {
    package struct Options: Sendable {
        package var customer: String
        package var event: String
        /// `--outflow` as given (`600/min`), used when the event has no `MaxRedirectsPerMinute`
        /// and in its place when given.
        package var outflow: String?

        package init(customer: String, event: String, outflow: String? = nil) {
            self.customer = customer
            self.event = event
            self.outflow = outflow
        }
    }

    package struct Result: Sendable {
        package var yaml: String
        /// One line each, without the `warning:` prefix the command adds.
        package var warnings: [String]
    }

    /// The crowd the importer assumes (the event's settings say nothing about arrivals): this
    /// many minutes of outflow, times `crowdFactor`, spread evenly from second 0 to this long
    /// after the event start.
    static let crowdMinutes = 30
    static let crowdFactor = 1.5

    /// Keys of `waitingRoom` the scenario format accepts; a mapped key it does not (yet) accept
    /// is written as a `# not modelled:` line instead of an invalid key.
    static let acceptedRoomKeys = Set(RawWaitingRoom.CodingKeys.allCases.map(\.rawValue))

    let event: QueueItEvent
    let options: Options
    var lines = ScenarioLines()
    /// Fields turned into keys or comments so far; the rest are listed as not modelled.
    var handled: Set<String> = []

    package init(event: QueueItEvent, options: Options) {
        self.event = event
        self.options = options
    }

    /// The scenario's text and the warnings for stderr; a failure when the event cannot make
    /// a scenario (no outflow anywhere, an event id the SDK cannot carry, times that are not times).
    package static func build(_ event: QueueItEvent, options: Options) throws(ImportFailure) -> Result {
        var builder = ScenarioFromEvent(event: event, options: options)
        try builder.write()
        return Result(yaml: builder.lines.text, warnings: builder.lines.warnings)
    }

    private mutating func write() throws(ImportFailure) {
        let timeline = try EventTimeline(event)
        let outflow = try outflowPerMinute()
        header(timeline)
        lines.blank()
        lines.key("version", "1")
        lines.key("name", options.event, "EventId")
        lines.key("seed", "1")
        lines.key("clock", "virtual", "the event's hours computed in seconds; `run --clock wall` for real time")
        lines.blank()
        lines.section("target")
        lines.key("customerId", options.customer, "--customer", indent: 2)
        lines.key("waitingRoomId", options.event, "EventId", indent: 2)
        lines.key("endpoint", "embedded", "the imported settings played by the embedded room", indent: 2)
        // Kept, so that `validate` warns if `endpoint` is later pointed at the production room.
        if let value = event["IsTest"], let isTest = QueueItValue.bool(value) {
            lines.key("isTest", isTest ? "true" : "false", "IsTest", indent: 2)
        }
        handled.insert("EventId")
        lines.blank()
        arrivals(timeline: timeline, outflowPerMinute: outflow.perMinute)
        lines.blank()
        client(timeline: timeline)
        lines.blank()
        lines.section("visitors")
        lines.raw("  - name: app")
        lines.raw("    weight: 1")
        lines.blank()
        try waitingRoom(timeline: timeline, outflow: outflow)
        handled.insert("IsTest")  // its note closes the file, after the not modelled lines
        notModelledFields()
        isTestNote()
    }

    private mutating func header(_ timeline: EventTimeline) {
        // The same bytes whether the event came from the API or a file: no source, no date.
        lines.comment(
            "Imported by `queuesim import queue-it` from Queue-it event \(options.event) of customer \(options.customer)."
        )
        if let name = event["DisplayName"] {
            lines.comment("DisplayName: \(EventFieldCatalog.shown("DisplayName", name))")
            handled.insert("DisplayName")
        }
        lines.comment("Each key says the event field it came from. Fields the embedded room does not model, or")
        lines.comment("models differently, are the `# not modelled:` lines in waitingRoom (docs/import.md).")
        lines.comment(timeline.secondZeroNote)
    }

    private mutating func arrivals(timeline: EventTimeline, outflowPerMinute: Double) {
        let spanMilliseconds = timeline.eventStartMilliseconds + Int64(Self.crowdMinutes) * 60_000
        let visitors = (outflowPerMinute * Double(Self.crowdMinutes) * Self.crowdFactor).rounded()
        let perMinute = max(visitors / (Double(spanMilliseconds) / 60_000), 1)
        lines.comment(
            "arrivals: not in the event's settings. An assumed crowd: \(ImportNumbers.text(Self.crowdFactor)) × what the"
        )
        lines.comment(
            "outflow lets through in \(Self.crowdMinutes) minutes, from second 0 to \(Self.crowdMinutes) minutes after the event start."
        )
        lines.comment("Replace it with the event's real crowd: `import queue-it-stats` and `replay:` (docs/import.md).")
        lines.section("arrivals")
        lines.key("process", "poisson", indent: 2)
        lines.section("phases", indent: 2)
        lines.raw(
            "    - { duration: \(ScenarioDuration.text(milliseconds: spanMilliseconds)), rate: \(ImportNumbers.text((perMinute * 100).rounded() / 100))/min }"
        )
    }

    /// `client.maxWait` long enough for the assumed crowd: the first visitor waits from second 0
    /// to the event start, and the last release comes `crowdFactor × crowdMinutes` after it.
    private mutating func client(timeline: EventTimeline) {
        let releaseMinutes = Int64((Self.crowdFactor * Double(Self.crowdMinutes)).rounded(.up))
        let longest = timeline.eventStartMilliseconds + releaseMinutes * 60_000
        let minutes = (longest + 59_999) / 60_000
        lines.section("client")
        lines.key(
            "maxWait", ScenarioDuration.text(milliseconds: minutes * 60_000),
            "not in the event: the assumed crowd's longest wait", indent: 2)
    }

    private mutating func waitingRoom(
        timeline: EventTimeline, outflow: (text: String, perMinute: Double, source: String)
    )
        throws(ImportFailure)
    {
        lines.section("waitingRoom")
        safetyNet()
        if timeline.eventStartMilliseconds > 0 {
            lines.key(
                "eventStart", ScenarioDuration.text(milliseconds: timeline.eventStartMilliseconds),
                "EventStartTime \(timeline.eventStart.map(\.description) ?? "")", indent: 2)
        } else if let start = timeline.eventStart {
            lines.key("eventStart", "0s", "EventStartTime \(start) (second 0)", indent: 2)
        }
        handled.formUnion(["EventStartTime", "PreQueueStartTime"])
        lines.key("outflow", outflow.text, outflow.source, indent: 2)
        secret()
        requireKey()
        queueNumberValidity()
        maxRedirects()
        afterEvent(timeline)
        captcha()
        warnings(of: timeline)
    }
}
