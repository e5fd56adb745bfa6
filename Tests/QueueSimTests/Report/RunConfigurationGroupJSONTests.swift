import Foundation
import Testing

@testable import QueueSim

/// The configuration's `groups` are written straight to bytes (issue 51); they must be the bytes
/// the generic encoders write for the same entries, in the pending file and in run.json alike.
@Suite("report schema: the configuration's groups written directly")
struct RunConfigurationGroupJSONTests {
    /// The entries through the direct writer, as `RunConfiguration` encodes them.
    struct Direct: Encodable {
        var groups: [RunConfiguration.GroupEntry]
        enum CodingKeys: String, CodingKey { case groups }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(RunConfiguration.GroupEntriesEncoding(groups: groups), forKey: .groups)
        }
    }

    /// The same through the entries' synthesized `encode(to:)`.
    struct Generic: Encodable {
        var groups: [RunConfiguration.GroupEntry]
    }

    static let texts = SortedJSONTextTests.texts

    static func text(_ random: inout SplitMix) -> String { texts[Int(random.next() % UInt64(texts.count))] }

    static func maybe(_ random: inout SplitMix) -> String? { random.next() % 3 == 0 ? nil : text(&random) }

    static func entry(_ random: inout SplitMix) -> RunConfiguration.GroupEntry {
        var overrides: [String: String] = [:]
        for _ in 0..<Int(random.next() % 4) { overrides[text(&random)] = text(&random) }
        let weights = [1, 0.5, 1.0 / 3, 2e-7, 12_345.678, 0]
        return RunConfiguration.GroupEntry(
            name: text(&random), weight: weights[Int(random.next() % 6)], share: Double(random.next() % 1_000) / 997,
            flow: text(&random), platform: text(&random), connections: text(&random), sdkVersion: text(&random),
            userAgent: text(&random), requestTimeoutMs: Int64(random.next() % 100_000),
            pollIntervalMs: Int64(random.next() % 10_000), maxWaitMs: Int64(random.next() % 3_600_000),
            maxRestarts: Int(random.next() % 9), queuePageRetry: text(&random), enqueueKey: maybe(&random),
            enqueueToken: maybe(&random), inviteCode: maybe(&random), targetOverrides: overrides,
            patience: maybe(&random), comeback: maybe(&random), afterPass: maybe(&random),
            noShow: random.next() % 2 == 0 ? nil : Double(random.next() % 100) / 100)
    }

    @Test(arguments: [false, true])
    func seededEntriesAreTheGenericEncodersBytes(pretty: Bool) throws {
        for seed in 0..<300 {
            var random = SplitMix(seed: UInt64(seed))
            let groups = (0..<(seed % 7 == 0 ? 0 : Int(random.next() % 9))).map { _ in Self.entry(&random) }
            let direct = try SortedJSONEncoder(pretty: pretty).encode(Direct(groups: groups))
            let generic = try SortedJSONEncoder(pretty: pretty).encode(Generic(groups: groups))
            #expect(direct == generic, "seed \(seed)")
            #expect(
                direct == (try SortedJSONTextTests.foundation(Generic(groups: groups), pretty: pretty)), "seed \(seed)")
        }
    }

    /// Rendered at a member's depth, as run.json renders its configuration ahead of the rest.
    @Test func atDepthOneTheBytesAreTheGenericEncodersToo() throws {
        var random = SplitMix(seed: 7)
        let groups = (0..<3).map { _ in Self.entry(&random) }
        #expect(
            try SortedJSONEncoder(pretty: true).encode(Direct(groups: groups), depth: 1)
                == (try SortedJSONEncoder(pretty: true).encode(Generic(groups: groups), depth: 1)))
    }

    /// A weight no JSON can hold is refused as the generic encoder refuses it, naming its place.
    @Test func aNonFiniteWeightIsRefusedWithItsPath() throws {
        var random = SplitMix(seed: 1)
        var groups = [Self.entry(&random), Self.entry(&random)]
        groups[1].weight = .nan
        #expect {
            _ = try SortedJSONEncoder(pretty: false).encode(Direct(groups: groups))
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["groups", "Index 1", "weight"]
        }
    }
}
