import Foundation
import QueueSim
import Testing

@Suite("import queue-it: the scenario written from an event")
struct ScenarioFromEventTests {
    static let options = ScenarioFromEvent.Options(customer: "acme", event: "spring26")

    static func build(_ fields: [String: String], outflow: String? = nil) throws -> ScenarioFromEvent.Result {
        try ScenarioFromEvent.build(
            QueueItEvent(fields: fields), options: .init(customer: "acme", event: "spring26", outflow: outflow))
    }

    /// The scenario with each key's comment one space after its value (the file aligns them).
    static func compact(_ yaml: String) -> String {
        yaml.replacing(/(\S) {2,}#/) { "\($0.output.1) #" }
    }

    @Test("every field of the event is named: in a key's comment or a `# not modelled:` line with a warning")
    func everyFieldNamed() throws {
        let event = try ImportFixtures.event
        let result = try ScenarioFromEvent.build(event, options: Self.options)
        for name in event.names {
            #expect(result.yaml.contains(name), "\(name) is not named in the scenario")
        }
        let notModelled = result.yaml.split(separator: "\n").filter { $0.contains("# not modelled: ") }
        for line in notModelled {
            let words = line.split(separator: "# ", maxSplits: 1).last.map(String.init) ?? ""
            #expect(result.warnings.contains(words), "no warning for: \(words)")
        }
        for field in [
            "RedirectUrl", "DomainAlias", "CaptchaType", "AfterEventLogic", "IdleQueueLogic", "AllowedCustomLayouts",
            "QueueStatusText", "TimeZone", "UseSSL",
        ] {
            #expect(notModelled.contains { $0.contains("not modelled: \(field) = ") }, "\(field)")
        }
        // Null and empty fields set nothing and are not listed.
        #expect(!result.yaml.contains("IdleQueueRedirectPage"))
        #expect(!result.yaml.contains("TargetUrlValidationRegex"))
    }

    @Test("the room's keys, each with the field it came from")
    func mappedKeys() throws {
        let yaml = Self.compact(try ScenarioFromEvent.build(ImportFixtures.event, options: Self.options).yaml)
        for line in [
            "  mode: safetynet # SafetyNetMode ProtectionAndQueueSequence (SafetyNet burst protection)",
            "  eventStart: 30m # EventStartTime 2026-05-01T09:00:00Z",
            "  outflow: 900/min # MaxRedirectsPerMinute 900",
            "  inviteOnly: true # RequireKey RequireUniqueKey",
            "  queueNumberValidity: 15m # QueueNumberValidityInMinutes 15",
            "  maxRedirectsPerQueueId: 5 # MaxNoOfRedirectsPrQueueId 5",
            "    - { from: 210m, mode: afterevent } # EventEndTime 2026-05-01T12:00:00Z",
            "  secretKey: ${QUEUESIM_SECRET:-dev-secret} # KnowUserSecretKey: never copied; set QUEUESIM_SECRET to it",
        ] {
            #expect(yaml.contains(line + "\n"), "missing: \(line)")
        }
        #expect(yaml.contains("  safetyNet: burst"))
        #expect(yaml.contains("  uniqueKeys: true"))
        #expect(yaml.contains("The run's second 0 is PreQueueStartTime 2026-05-01T08:30:00Z"))
    }

    @Test("the room's secret and no other secret-like value is ever copied")
    func secretNeverCopied() throws {
        let result = try ScenarioFromEvent.build(
            try ImportFixtures.event, options: Self.options)
        #expect(!result.yaml.contains(ImportFixtures.secret))
        #expect(!result.warnings.joined().contains(ImportFixtures.secret))
        let other = try Self.build(["SomeApiToken": "tok-123-secret", "MaxRedirectsPerMinute": "60"])
        #expect(!other.yaml.contains("tok-123-secret"))
        #expect(other.yaml.contains("# not modelled: SomeApiToken = <secret, not copied>"))
    }

    @Test("the scenario it writes is valid, for each SafetyNetMode and RequireKey")
    func validForEveryMode() throws {
        for mode in ["Disabled", "ProtectionAndQueueSequence", "RelaxedProtectionAndQueueSequence", "OutputThroughput"]
        {
            for key in ["NoKey", "RequireKey", "RequireUniqueKey"] {
                var fields = try ImportFixtures.event.fields
                fields["SafetyNetMode"] = mode
                fields["RequireKey"] = key
                let yaml = try Self.build(fields).yaml
                #expect(throws: Never.self, "\(mode) \(key)") {
                    _ = try ScenarioLoader.load(yaml: yaml, path: "room.yaml", environment: [:])
                }
            }
        }
        let fields = try ImportFixtures.event.fields
        #expect(try Self.build(fields.merging(["SafetyNetMode": "Disabled"]) { $1 }).yaml.contains("  mode: queue "))
        #expect(
            try Self.build(fields.merging(["SafetyNetMode": "OutputThroughput"]) { $1 }).yaml.contains(
                "  safetyNet: mixed"))
        #expect(
            try Self.build(fields.merging(["SafetyNetMode": "RelaxedProtectionAndQueueSequence"]) { $1 }).yaml.contains(
                "  safetyNet: normal"))
    }

    @Test("IsTest False warns that a live run loads production; RequireKey warns about keys")
    func warnings() throws {
        let warnings = try ScenarioFromEvent.build(ImportFixtures.event, options: Self.options).warnings
        #expect(warnings.contains { $0.hasPrefix("IsTest is False: spring26 is a production room") })
        #expect(
            warnings.contains { $0.contains("RequireKey RequireUniqueKey: the room admits only visitors with a key") })
        let test = try Self.build(["IsTest": "True", "MaxRedirectsPerMinute": "60"])
        #expect(!test.warnings.contains { $0.contains("production") })
        // Kept as target.isTest, which validate reads before a live run against the real room.
        #expect(Self.compact(test.yaml).contains("  isTest: true # IsTest"))
        #expect(
            Self.compact(try ScenarioFromEvent.build(ImportFixtures.event, options: Self.options).yaml).contains(
                "  isTest: false # IsTest"))
    }

    @Test("the outflow: MaxRedirectsPerMinute, else --outflow with its unit; neither is exit 2")
    func outflow() throws {
        #expect(try Self.build([:], outflow: "10/s").yaml.contains("  outflow: 10/s "))
        #expect(
            Self.compact(try Self.build(["MaxRedirectsPerMinute": "600"], outflow: "1200/min").yaml).contains(
                "  outflow: 1200/min # --outflow (the event's MaxRedirectsPerMinute is 600)"))
        let missing = #expect(throws: ImportFailure.self) { try Self.build([:]) }
        #expect(missing?.status == .invalidInput)
        #expect(missing?.message.contains("give the room's outflow: --outflow 600/min") == true)
        let bare = #expect(throws: ImportFailure.self) { try Self.build([:], outflow: "600") }
        #expect(bare?.message.hasPrefix("--outflow must be a rate with its unit") == true)
    }

    @Test("times: second 0 without a pre-queue, a pre-queue after the start, a time that is not one")
    func times() throws {
        let noPreQueue = try Self.build(["EventStartTime": "/Date(1777626000000)/", "MaxRedirectsPerMinute": "60"])
        #expect(noPreQueue.yaml.contains("The run's second 0 is EventStartTime 2026-05-01T09:00:00Z"))
        #expect(noPreQueue.yaml.contains("  eventStart: 0s "))
        let late = try Self.build([
            "EventStartTime": "2026-05-01T09:00:00Z", "PreQueueStartTime": "2026-05-01T09:10:00Z",
            "MaxRedirectsPerMinute": "60",
        ])
        #expect(
            late.warnings.contains { $0.hasPrefix("PreQueueStartTime 2026-05-01T09:10:00Z is after EventStartTime") })
        let bad = #expect(throws: ImportFailure.self) {
            try Self.build(["EventStartTime": "tomorrow", "MaxRedirectsPerMinute": "60"])
        }
        #expect(bad?.message.hasPrefix("EventStartTime `tomorrow` is not a time") == true)
    }

    @Test("values out of Queue-it's ranges are not modelled, and the scenario stays valid")
    func outOfRange() throws {
        let result = try Self.build([
            "QueueNumberValidityInMinutes": "90", "MaxNoOfRedirectsPrQueueId": "0", "MaxRedirectsPerMinute": "60",
        ])
        #expect(
            result.yaml.contains(
                "# not modelled: QueueNumberValidityInMinutes = 90 (not a whole number of minutes from 5 to 60"))
        #expect(result.yaml.contains("# not modelled: MaxNoOfRedirectsPrQueueId = 0 (not a whole number from 1 to 20"))
        #expect(throws: Never.self) {
            _ = try ScenarioLoader.load(yaml: result.yaml, path: "room.yaml", environment: [:])
        }
    }

    @Test("an Admin API error body (sent with 200) is the error it describes")
    func errorBody() {
        let failure = #expect(throws: ImportFailure.self) {
            try QueueItEvent.parse(
                Array(#"{"ErrorCode":1,"ErrorText":"Invalid api key","HttpStatusCode":401}"#.utf8), source: "answer")
        }
        #expect(failure?.message.contains("refused the API key (401: ErrorCode 1, Invalid api key)") == true)
        #expect(failure?.status == .invalidInput)
    }
}
