/// The waiting room's keys, one function per group of event fields.
extension ScenarioFromEvent {
    mutating func outflowPerMinute() throws(ImportFailure) -> (text: String, perMinute: Double, source: String) {
        let field = event["MaxRedirectsPerMinute"]
        handled.insert("MaxRedirectsPerMinute")
        if let given = options.outflow {
            let text = String(given.trimmingSpaces)
            guard text.contains("/"), let perSecond = ScenarioUnits.rate(text), perSecond > 0, perSecond.isFinite else {
                throw ImportFailure(
                    "--outflow must be a rate with its unit, such as 600/min (Queue-it's Max Outflow is per minute) "
                        + "or 10/s; found `\(EventFieldCatalog.shown("outflow", given))`")
            }
            let said = field.map { "the event's MaxRedirectsPerMinute is \(EventFieldCatalog.shown("", $0))" }
            return (text, perSecond * 60, "--outflow" + (said.map { " (\($0))" } ?? ""))
        }
        guard let field else {
            throw ImportFailure(
                "the event has no MaxRedirectsPerMinute (Queue-it sets the outflow through /queue/speed, and "
                    + "not every answer or export carries it); give the room's outflow: --outflow 600/min")
        }
        guard let perMinute = QueueItValue.integer(field), perMinute > 0 else {
            throw ImportFailure(
                "MaxRedirectsPerMinute `\(EventFieldCatalog.shown("", field))` is not a number of redirects per "
                    + "minute above 0; give the room's outflow: --outflow 600/min")
        }
        return ("\(perMinute)/min", Double(perMinute), "MaxRedirectsPerMinute \(perMinute)")
    }

    mutating func safetyNet() {
        handled.insert("SafetyNetMode")
        guard let value = event["SafetyNetMode"] else {
            lines.key("mode", "queue", "no SafetyNetMode in the event: always queue", indent: 2)
            return
        }
        let variants = [
            "ProtectionAndQueueSequence": ("burst", "SafetyNet burst protection"),
            "RelaxedProtectionAndQueueSequence": ("normal", "SafetyNet normal"),
            "OutputThroughput": ("mixed", "SafetyNet mixed mode"),
        ]
        if value == "Disabled" {
            lines.key("mode", "queue", "SafetyNetMode Disabled (always queue)", indent: 2)
        } else if let (variant, words) = variants[value] {
            lines.key("mode", "safetynet", "SafetyNetMode \(value) (\(words))", indent: 2)
            if Self.acceptedRoomKeys.contains("safetyNet") {
                lines.key("safetyNet", variant, "SafetyNetMode: readings inferred, docs/waiting-room.md", indent: 2)
            } else {
                lines.notModelled(
                    "SafetyNetMode", value, "the embedded room has one safetynet rule, SafetyNet normal's", indent: 2)
            }
        } else {
            lines.key("mode", "queue", "SafetyNetMode not known: see the not modelled line", indent: 2)
            lines.notModelled(
                "SafetyNetMode", EventFieldCatalog.shown("SafetyNetMode", value),
                "not one of Disabled, ProtectionAndQueueSequence, RelaxedProtectionAndQueueSequence, "
                    + "OutputThroughput; the room queues everyone", indent: 2)
        }
    }

    mutating func secret() {
        handled.formUnion(["KnowUserSecretKey", "KnowUserSecurity"])
        let source =
            event["KnowUserSecretKey"] != nil
            ? "KnowUserSecretKey: never copied; set QUEUESIM_SECRET to it" : "the room's secret: set QUEUESIM_SECRET"
        lines.key("secretKey", "${QUEUESIM_SECRET:-dev-secret}", source, indent: 2)
        guard let security = event["KnowUserSecurity"] else { return }
        switch security {
        case "KnownUserV3", "HMACSHA256", "None":
            lines.comment(
                "KnowUserSecurity: \(security) (the embedded room signs KnownUser V3 tokens, HMAC-SHA256)", indent: 2)
        default:
            lines.notModelled(
                "KnowUserSecurity", EventFieldCatalog.shown("KnowUserSecurity", security),
                "the embedded room signs KnownUser V3 tokens (HMAC-SHA256) only", indent: 2)
        }
    }

    mutating func requireKey() {
        handled.insert("RequireKey")
        guard let value = event["RequireKey"] else { return }
        switch value {
        case "NoKey":
            lines.key("inviteOnly", "false", "RequireKey NoKey", indent: 2)
        case "RequireKey", "RequireUniqueKey":
            lines.key("inviteOnly", "true", "RequireKey \(value)", indent: 2)
            if value == "RequireUniqueKey" {
                if Self.acceptedRoomKeys.contains("uniqueKeys") {
                    lines.key(
                        "uniqueKeys", "true", "RequireKey RequireUniqueKey: a key used twice is refused", indent: 2)
                } else {
                    lines.notModelled("RequireKey", value, "the embedded room accepts a key more than once", indent: 2)
                }
            }
            lines.comment(
                "enqueueKeys: { csv: keys.csv, column: key }   # RequireKey: the room's keys (not in the event)",
                indent: 2)
            lines.warn(
                "RequireKey \(value): the room admits only visitors with a key; add the keys (waitingRoom.enqueueKeys) "
                    + "and the visitors' enqueueKey, or every visitor is refused")
        default:
            lines.notModelled(
                "RequireKey", EventFieldCatalog.shown("RequireKey", value),
                "not one of NoKey, RequireKey, RequireUniqueKey; the room admits everyone", indent: 2)
        }
    }

    mutating func queueNumberValidity() {
        handled.insert("QueueNumberValidityInMinutes")
        guard let value = event["QueueNumberValidityInMinutes"] else { return }
        guard let minutes = QueueItValue.integer(value), (5...60).contains(minutes) else {
            lines.notModelled(
                "QueueNumberValidityInMinutes", EventFieldCatalog.shown("", value),
                "not a whole number of minutes from 5 to 60, Queue-it's range; numbers stay valid", indent: 2)
            return
        }
        guard Self.acceptedRoomKeys.contains("queueNumberValidity") else {
            lines.notModelled(
                "QueueNumberValidityInMinutes", value, "the embedded room keeps a reached number valid", indent: 2)
            return
        }
        lines.key("queueNumberValidity", "\(minutes)m", "QueueNumberValidityInMinutes \(minutes)", indent: 2)
    }

    mutating func maxRedirects() {
        handled.insert("MaxNoOfRedirectsPrQueueId")
        let value = event["MaxNoOfRedirectsPrQueueId"]
        var count = 3
        var source = "no MaxNoOfRedirectsPrQueueId in the event: Queue-it's default 3"
        if let value {
            guard let read = QueueItValue.integer(value), (1...20).contains(read) else {
                lines.notModelled(
                    "MaxNoOfRedirectsPrQueueId", EventFieldCatalog.shown("", value),
                    "not a whole number from 1 to 20, Queue-it's range; the room allows 3", indent: 2)
                return
            }
            count = read
            source = "MaxNoOfRedirectsPrQueueId \(read)"
        }
        guard Self.acceptedRoomKeys.contains("maxRedirectsPerQueueId") else {
            if let value {
                lines.notModelled(
                    "MaxNoOfRedirectsPrQueueId", value, "the embedded room does not count redirects", indent: 2)
            }
            return
        }
        lines.key("maxRedirectsPerQueueId", "\(count)", source, indent: 2)
    }

    mutating func afterEvent(_ timeline: EventTimeline) {
        handled.formUnion(["EventEndTime", "AfterEventLogic", "AfterEventEndUserRedirectsEnabled"])
        let logic = event["AfterEventLogic"]
        guard let endMilliseconds = timeline.eventEndMilliseconds, let end = timeline.eventEnd else {
            if let logic {
                lines.notModelled(
                    "AfterEventLogic", EventFieldCatalog.shown("", logic), "the event has no EventEndTime", indent: 2)
            }
            return
        }
        lines.section("faults", indent: 2)
        lines.raw(
            "    - { from: \(ScenarioDuration.text(milliseconds: endMilliseconds)), mode: afterevent }"
                + "   # EventEndTime \(end)")
        if let logic {
            if logic == "KeepUsersOnAfterEventPage" {
                lines.comment("AfterEventLogic: \(logic) (redirect type afterevent, as modelled)", indent: 2)
            } else {
                lines.notModelled(
                    "AfterEventLogic", EventFieldCatalog.shown("", logic),
                    "the embedded room answers redirect type afterevent (outcome `disabled`) whatever page the "
                        + "real room opens", indent: 2)
            }
        }
        if let finish = event["AfterEventEndUserRedirectsEnabled"] {
            if QueueItValue.bool(finish) == true {
                lines.notModelled(
                    "AfterEventEndUserRedirectsEnabled", finish,
                    "visitors in the queue at EventEndTime keep their turn in the real room; the embedded room "
                        + "lets them through with redirect type afterevent at their next poll", indent: 2)
            } else {
                lines.comment(
                    "AfterEventEndUserRedirectsEnabled: \(EventFieldCatalog.shown("", finish)) (the queue ends at "
                        + "EventEndTime, as modelled)", indent: 2)
            }
        }
    }

    mutating func captcha() {
        handled.insert("CaptchaType")
        guard let value = event["CaptchaType"] else { return }
        if value == "None" {
            lines.comment("CaptchaType: None (no captcha, as in the embedded room)", indent: 2)
        } else {
            lines.notModelled(
                "CaptchaType", EventFieldCatalog.shown("CaptchaType", value), EventFieldCatalog.reason("CaptchaType"),
                indent: 2)
        }
    }

    mutating func warnings(of timeline: EventTimeline) {
        for warning in timeline.warnings { lines.warn(warning) }
    }

    /// Every field not turned into a key or a comment above, with the reason.
    mutating func notModelledFields() {
        for name in event.names where !handled.contains(name) {
            let shown = EventFieldCatalog.shown(name, event[name])
            lines.notModelled(name, shown, EventFieldCatalog.reason(name), indent: 2)
        }
    }

    mutating func isTestNote() {
        handled.insert("IsTest")
        guard let value = event["IsTest"] else { return }
        lines.blank()
        if QueueItValue.bool(value) == false {
            lines.comment("IsTest: False: a production room. A live run against the real room loads production.")
            lines.warn(
                "IsTest is False: \(options.event) is a production room; a live run against the real room "
                    + "(target.endpoint set to it) loads production")
        } else {
            lines.comment("IsTest: \(EventFieldCatalog.shown("IsTest", value)) (a test event)")
        }
    }
}
