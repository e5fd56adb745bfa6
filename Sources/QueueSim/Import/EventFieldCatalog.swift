/// What queuesim does with each field of a Queue-it event (docs/import.md, "Field mapping").
/// Fields the importer turns into scenario keys are read in `ScenarioFromEvent`; the others are
/// named here with the reason the embedded room does not model them, so every field of the
/// event ends up either in a key's comment or in a `# not modelled:` line, never dropped.
package enum EventFieldCatalog {
    /// Fields read into keys (or the file's header); every other field present is not modelled.
    static let read: Set<String> = [
        "EventId", "DisplayName", "EventStartTime", "PreQueueStartTime", "EventEndTime", "MaxRedirectsPerMinute",
        "SafetyNetMode", "RequireKey", "QueueNumberValidityInMinutes", "MaxNoOfRedirectsPrQueueId", "KnowUserSecurity",
        "KnowUserSecretKey", "AfterEventLogic", "AfterEventEndUserRedirectsEnabled", "IsTest", "CaptchaType",
    ]

    private static let presentation =
        "presentation: what the queue page shows; virtual visitors read no page text"
    private static let webConnector =
        "an option of web (JavaScript and connector) integrations; the app SDK calls the mobile API"

    /// Why a field is not modelled.
    static func reason(_ field: String) -> String {
        switch field {
        case "Description", "TimeZone", "TimeZonePostfix", "EventCulture", "BrowserCultureEnabled", "CustomLayout",
            "AllowedCustomLayouts", "XUsersInFrontOfYou", "QueueStatusText":
            return presentation
        case "RedirectUrl":
            return "the embedded room sends a visitor whose turn came to its own target page; the run records "
                + "the pass and never loads the shop; target.protectedApi rehearses the shop's API"
        case "DomainAlias":
            return "the room's own domain; apps reach the queue at {customerId}.queue-it.net unless they set "
                + "a waiting-room domain: set target.waitingRoomDomain if yours does"
        case "IdleQueueLogic", "IdleQueueRedirectPage":
            return "the idle room comes before the pre-queue opens; the run starts when it opens, so no visitor "
                + "meets it; a fault { to: …, mode: idle } rehearses it"
        case "AfterEventRedirectPage":
            return "the page itself; after EventEndTime the room answers every visitor with redirect type afterevent"
        case "UseSSL":
            return "the scheme of web connectors; the embedded room serves the scheme of target.endpoint"
        case "JavaScriptSupportEnabled", "TargetUrlSupportEnabled", "TargetUrlValidationRegex":
            return webConnector
        case "CaptchaType":
            return "a captcha is solved by a person in the queue page; virtual visitors are never asked"
        default:
            return "a field queuesim does not know (docs/import.md lists the ones it does)"
        }
    }

    /// Whether a field's value must never be copied (the room's secret, any key or password).
    static func isSecret(_ field: String) -> Bool {
        let lower = field.lowercased()
        return lower.contains("secret") || lower.contains("password") || lower.contains("apikey")
            || lower.contains("api-key") || lower.contains("token")
    }

    /// A value as a comment shows it: one printable line of at most 100 characters, credentials
    /// redacted; a secret field's value never.
    package static func shown(_ field: String, _ value: String?) -> String {
        guard let value else { return "(a list or object)" }
        if isSecret(field) { return "<secret, not copied>" }
        let line = String(
            value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        let redacted = SecretRedaction.redact(line)
        return redacted.count > 100 ? String(redacted.prefix(100)) + "…" : redacted
    }
}
