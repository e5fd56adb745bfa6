import Foundation
import Testing

@testable import QueueSim

/// `run.json` has one type (issue 54 item 4): what a run writes reads back as that type and
/// writes again to the same bytes — the bytes `JSONEncoder` wrote before — and it records the
/// room rules and no-show shares that change a run's outcomes (issue 53).
@Suite("run.json: one Codable type, the room's rules and no-shows in its configuration")
struct RunManifestSchemaTests {
    /// A safetynet room with every imported Queue-it rule set, behaviours, a windowed threshold
    /// and a no-show share: most of run.json's optional sections are present.
    static let ruled = """
        version: 1
        name: ruled
        seed: 5
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 500ms, maxWait: 2m }
        arrivals: { phases: [ { duration: 20s, rate: 2 } ] }
        visitors:
          - { name: app, weight: 3, noShow: 5%, patience: { mean: 40s } }
          - { name: web, weight: 1, patience: { mean: 30s }, comeback: { share: 50%, after: { mean: 10s } } }
        waitingRoom:
          mode: safetynet
          safetyNet: burst
          outflow: 30/min
          queueNumberValidity: 10m
          maxRedirectsPerQueueId: 5
        thresholds:
          - { threshold: "error < 5%", over: 10s }
          - "passed >= 1%"
        compare:
          wait.p95: +10%
        """

    static let plain = """
        version: 1
        name: plain
        seed: 5
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { duration: 5s, rate: 2 } ] }
        visitors: [ { name: app } ]
        waitingRoom: { outflow: 60/min }
        """

    static func runJSON(_ reports: RunReports) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: reports.directory + "/" + Recorder.manifestFile))
    }

    @Test func whatARunWritesReadsBackAndWritesAgainToTheSameBytes() throws {
        for yaml in [Self.ruled, Self.plain] {
            let bytes = try Self.runJSON(try RunFixture.virtual(yaml, label: "schema-roundtrip"))
            let manifest = try RunManifest.read(bytes)
            #expect(Data(try manifest.json().utf8) == bytes)
            // …and they are the bytes Foundation's encoder gives the same value (the old writer).
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            #expect(try encoder.encode(manifest) + Data("\n".utf8) == bytes)
        }
    }

    @Test func theRoomsRulesAndNoShowsAreInTheConfigurationWhereSet() throws {
        let ruled = try RunFixture.virtual(Self.ruled, label: "schema-ruled")
        let configuration = try #require(ruled.manifest["configuration"] as? [String: Any])
        let room = try #require(configuration["room"] as? [String: Any])
        #expect(room["queue_number_validity_minutes"] as? Double == 10)
        #expect(room["max_redirects_per_queue_id"] as? Int == 5)
        #expect(room["safety_net"] as? String == "burst")
        #expect(room["unique_keys"] == nil)
        let groups = try #require(configuration["groups"] as? [[String: Any]])
        #expect(groups.map { $0["no_show"] as? Double } == [0.05, nil])
        let page = try String(contentsOfFile: ruled.directory + "/" + Recorder.pageFile, encoding: .utf8)
        for words in [
            "<dt>queue-number validity</dt><dd>10m</dd>", "<dt>max redirects per queue id</dt><dd>5</dd>",
            "<dt>SafetyNet variant</dt><dd>burst</dd>", "no-shows 5% (their turn goes unused)",
        ] {
            #expect(page.contains(words), "\(words)")
        }

        // A scenario that sets none of them gains no key (reports stay as they were).
        let plain = try RunFixture.virtual(Self.plain, label: "schema-plain")
        let plainRoom = try #require((plain.manifest["configuration"] as? [String: Any])?["room"] as? [String: Any])
        for key in ["queue_number_validity_minutes", "max_redirects_per_queue_id", "unique_keys", "safety_net"] {
            #expect(plainRoom[key] == nil, "\(key)")
        }
        let plainGroups = try #require(
            (plain.manifest["configuration"] as? [String: Any])?["groups"] as? [[String: Any]])
        #expect(plainGroups.allSatisfy { $0["no_show"] == nil })
    }

    @Test func compareNamesADifferenceInTheRulesAndNoShows() throws {
        func compared(_ yaml: String, label: String) throws -> ComparedRun {
            try ComparedRun(folder: try RunFixture.virtual(yaml, label: label).directory)
        }
        let base = try compared(Self.ruled, label: "schema-base")
        let changed = Self.ruled
            .replacingOccurrences(of: "queueNumberValidity: 10m", with: "queueNumberValidity: 15m")
            .replacingOccurrences(of: "maxRedirectsPerQueueId: 5", with: "maxRedirectsPerQueueId: 3")
            .replacingOccurrences(of: "safetyNet: burst", with: "safetyNet: mixed")
            .replacingOccurrences(of: "noShow: 5%", with: "noShow: 20%")
        let lines = ConfigurationDifferences.lines(bases: [base], new: try compared(changed, label: "schema-new"))
        for line in [
            "queue-number validity 10 min → 15 min", "max redirects per queue id 5 → 3",
            "SafetyNet variant burst → mixed", "group app noShow 5% → 20%",
        ] {
            #expect(lines.contains(line), "\(lines)")
        }
        #expect(!lines.contains { $0.hasPrefix("unique keys") || $0.hasPrefix("group web") })
    }

    @Test func aRunJSONWithoutAKeyEveryRunJSONHasIsRefusedNamingIt() throws {
        let bytes = try Self.runJSON(try RunFixture.virtual(Self.plain, label: "schema-missing"))
        var object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        object["outcomes"] = nil
        let broken = try JSONSerialization.data(withJSONObject: object)
        #expect {
            try RunManifest.read(broken)
        } throws: { error in
            guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
            return key.stringValue == "outcomes"
        }
        // `queuesim report` needs the header's keys too; compare does not.
        object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        object["started_at"] = nil
        let headless = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try RunManifest.read(headless, requiring: [.startedAt]) }
        #expect(try RunManifest.read(headless).startedAt == "")
    }
}
