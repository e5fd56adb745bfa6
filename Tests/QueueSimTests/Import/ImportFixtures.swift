import Foundation
import QueueSim
import Synchronization

/// A synthetic Queue-it event holding every field of the Admin API's reference (values as the
/// API writes them: strings, ISO-8601 with seven fractional digits, `\/Date(ms)\/`), and a
/// clock tests move by hand.
enum ImportFixtures {
    static let secret = "4f2a9c1e-7d3b-synthetic-room-secret"
    static let apiKey = "qit-api-5e8d1c2b-synthetic-key"

    static let eventJSON = #"""
        {
          "EventId": "spring26",
          "DisplayName": "Spring launch",
          "Description": "synthetic",
          "RedirectUrl": "https://shop.example/launch",
          "TimeZone": "W. Europe Standard Time",
          "TimeZonePostfix": "CET",
          "EventCulture": "en-US",
          "BrowserCultureEnabled": "True",
          "PreQueueStartTime": "2026-05-01T08:30:00.0000000Z",
          "EventStartTime": "2026-05-01T09:00:00.0000000Z",
          "EventEndTime": "\/Date(1777636800000)\/",
          "MaxNoOfRedirectsPrQueueId": "5",
          "QueueNumberValidityInMinutes": "15",
          "AfterEventLogic": "RedirectUsersToTargetPage",
          "AfterEventRedirectPage": "https://shop.example/sold-out",
          "AfterEventEndUserRedirectsEnabled": "False",
          "IdleQueueLogic": "UseBeforePage",
          "IdleQueueRedirectPage": null,
          "UseSSL": "Auto",
          "JavaScriptSupportEnabled": "False",
          "TargetUrlSupportEnabled": "False",
          "TargetUrlValidationRegex": "",
          "SafetyNetMode": "ProtectionAndQueueSequence",
          "KnowUserSecurity": "KnownUserV3",
          "KnowUserSecretKey": "4f2a9c1e-7d3b-synthetic-room-secret",
          "CustomLayout": "Spring",
          "AllowedCustomLayouts": ["Spring", "Default"],
          "DomainAlias": "queue.shop.example",
          "CaptchaType": "BotDetect",
          "RequireKey": "RequireUniqueKey",
          "IsTest": "False",
          "XUsersInFrontOfYou": "True",
          "MaxRedirectsPerMinute": "900",
          "QueueStatusText": "Running"
        }
        """#

    static var event: QueueItEvent {
        get throws { try QueueItEvent.parse(Array(eventJSON.utf8), source: "event.json") }
    }
}

/// Time that moves only when someone sleeps: a minute-long wait costs nothing, and every wait
/// is recorded.
final class VirtualImportClock: ImportClock {
    private let state = Mutex((now: Duration.zero, sleeps: [Duration]()))

    var now: Duration { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.now += duration
            $0.sleeps.append(duration)
        }
    }
}
