import Foundation
import Testing

@testable import QueueSim

/// run.json's `groups` and `overall` are written straight to bytes (issue 51); they must be the
/// bytes the generic encoders write for the same figures, whatever the figures hold.
@Suite("report schema: run.json's group figures written directly")
struct RunManifestGroupJSONTests {
    // `SplitMix` is the test module's seeded generator (RunFolderCheckTests.swift).
    /// Encodes `groups` through the direct writer, as `RunManifest` does.
    struct Direct: Encodable {
        var groups: [RunManifest.GroupFigures]
        var overall: RunManifest.GroupFigures

        enum CodingKeys: String, CodingKey { case groups, overall }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(RunManifest.groupsEncoding(groups), forKey: .groups)
            try container.encode(RunManifest.groupEncoding(overall), forKey: .overall)
        }
    }

    /// The same through each type's own `encode(to:)`.
    struct Generic: Encodable {
        var groups: [RunManifest.GroupFigures]
        var overall: RunManifest.GroupFigures
    }

    static let names = ["g1", "app", "quote \" and \\", "line\nbreak", "é 🚀", "a/b", ""]

    /// A figure that may be missing, as when nobody was measured.
    static func figure(_ random: inout SplitMix) -> UInt64? {
        random.next() % 4 == 0 ? nil : random.next() % 200_000
    }

    static func distribution(_ random: inout SplitMix, capped: Bool) -> RunManifest.Distribution {
        var distribution = RunManifest.Distribution(TimingReading.sorted([]))
        distribution.count = random.next() % 5_000
        (distribution.p50, distribution.p90, distribution.p95) = (figure(&random), figure(&random), figure(&random))
        (distribution.p99, distribution.max) = (figure(&random), figure(&random))
        if capped {
            distribution.capMs = random.next() % 600_000
            distribution.cappedBy = "client.maxWait"
            distribution.capped = Array(["p95", "p99", "max"].prefix(Int(random.next() % 4)))
        }
        return distribution
    }

    static func group(_ random: inout SplitMix, name: String) -> RunManifest.GroupFigures {
        var group = RunManifest.GroupFigures(name: name, cells: [:])
        group.visitors = Int(random.next() % 100_000)
        for key in group.outcomes.keys { group.outcomes[key] = Int(random.next() % 1_000) }
        // A run.json read back may hold outcome words this build does not know, or lack some.
        if random.next() % 5 == 0 { group.outcomes["zz-later"] = 3 }
        if random.next() % 5 == 0 { group.outcomes["passed"] = nil }
        let capped = random.next() % 2 == 0
        group.enqueueMs = distribution(&random, capped: false)
        group.waitMs = distribution(&random, capped: capped)
        group.totalMs = distribution(&random, capped: false)
        group.connectMs = distribution(&random, capped: false)
        group.tlsMs = distribution(&random, capped: false)
        return group
    }

    @Test(arguments: [false, true])
    func seededFiguresAreTheGenericEncodersBytes(pretty: Bool) throws {
        for seed in 0..<300 {
            var random = SplitMix(seed: UInt64(seed))
            let count = seed % 7 == 0 ? 0 : Int(random.next() % 12)
            let groups = (0..<count).map { Self.group(&random, name: Self.names[$0 % Self.names.count] + "\($0)") }
            let overall = Self.group(&random, name: "all")
            let direct = try SortedJSONEncoder(pretty: pretty).encode(Direct(groups: groups, overall: overall))
            let generic = try SortedJSONEncoder(pretty: pretty).encode(Generic(groups: groups, overall: overall))
            #expect(direct == generic, "seed \(seed)")
            #expect(
                direct
                    == (try SortedJSONTextTests.foundation(Generic(groups: groups, overall: overall), pretty: pretty)))
        }
    }

    /// Groups no visitor reached are written from the first such group's bytes but their name
    /// (issue 51): still the generic encoder's bytes, also beside groups with no visitors whose
    /// other figures differ (a run.json read back, a wait cap).
    @Test(arguments: [false, true])
    func unvisitedGroupsAreTheGenericEncodersBytes(pretty: Bool) throws {
        var random = SplitMix(seed: 11)
        let unvisited = { (name: String) in RunManifest.GroupFigures(name: name, cells: [:]) }
        var outcomesDiffer = unvisited("outcomes differ")
        outcomesDiffer.outcomes["passed"] = 2
        var capped = unvisited("capped")
        capped.waitMs.capMs = 120_000
        capped.waitMs.cappedBy = "client.maxWait"
        let groups = [
            unvisited("a"), Self.group(&random, name: "visited"), unvisited("quote \" and \\"), outcomesDiffer,
            unvisited("é 🚀"), capped, unvisited(""),
        ]
        let overall = unvisited("all")
        let direct = try SortedJSONEncoder(pretty: pretty).encode(Direct(groups: groups, overall: overall))
        let generic = try SortedJSONEncoder(pretty: pretty).encode(Generic(groups: groups, overall: overall))
        #expect(String(decoding: direct, as: UTF8.self) == String(decoding: generic, as: UTF8.self))
    }

    @Test("another encoder gets the figures' own encoding")
    func otherEncodersGetTheOrdinaryEncoding() throws {
        var random = SplitMix(seed: 7)
        let value = Direct(groups: [Self.group(&random, name: "app")], overall: Self.group(&random, name: "all"))
        let generic = Generic(groups: value.groups, overall: value.overall)
        #expect(
            try SortedJSONTextTests.foundation(value, pretty: true)
                == (try SortedJSONTextTests.foundation(generic, pretty: true)))
    }
}
