import Foundation
import Testing

@testable import QueueSim

/// A group that mixes platforms, run in virtual time (issue 29, item 6): each visitor behaves
/// as its own platform, its row says which, and a run without a mix keeps its bytes.
@Suite("virtual run: a group of iOS and Android visitors", .timeLimit(.minutes(1)))
struct PlatformMixRunTests {
    /// PlatformRunTests' outage with one mixed group instead of one group per platform.
    static let outage = PlatformRunTests.outage.replacingOccurrences(
        of: "  - { name: iphone }\n  - { name: pixel, platform: android }",
        with: "  - { name: app, platform: { ios: 50%, android: 50% } }")

    @Test("a queue page outage: the group's iOS visitors end `error`, its Android visitors ride it out")
    func eachVisitorBehavesAsItsPlatform() throws {
        #expect(Self.outage.contains("platform: { ios: 50%"))
        let reports = try RunFixture.virtual(Self.outage)
        reports.expectContract(arrivals: 30)
        #expect(reports.visitors.header.last == "platform")
        #expect(Set(reports.visitors.column("platform")) == ["ios", "android"])
        for row in reports.visitors.rows {
            #expect(row["group"] == "app")
            #expect(row["outcome"] == (row["platform"] == "ios" ? "error" : "passed"), "\(row)")
        }
        // The end screen's summary by platform counts the rows' platforms.
        let platforms = reports.visitors.counts("platform")
        #expect(
            reports.report.platformOutcomes == [
                "ios": [.error: platforms["ios"] ?? 0], "android": [.passed: platforms["android"] ?? 0],
            ])
        // run.json's rehearsed configuration names the mix and each platform's SDK.
        let configuration = try #require(reports.manifest["configuration"] as? [String: Any])
        let group = try #require((configuration["groups"] as? [[String: Any]])?.first)
        #expect(group["platform"] as? String == "ios 50%, android 50%")
        #expect(group["sdk_version"] as? String == "iOS-3.5.1 / Android-3.0.0")
        // The same seed draws the same platforms.
        let again = try RunFixture.virtual(Self.outage)
        #expect(again.visitors.column("platform") == reports.visitors.column("platform"))
    }

    @Test("without a mix there is no platform column, and `{ ios: 100% }` is `ios` byte for byte")
    func aRunWithoutAMixKeepsItsBytes() throws {
        let plain = PlatformRunTests.outage.replacingOccurrences(
            of: "  - { name: pixel, platform: android }", with: "  - { name: pixel, platform: ios }")
        let hundred = PlatformRunTests.outage.replacingOccurrences(
            of: "  - { name: pixel, platform: android }", with: "  - { name: pixel, platform: { ios: 100% } }")
        let first = try RunFixture.virtual(plain)
        let second = try RunFixture.virtual(hundred)
        #expect(!first.visitors.header.contains("platform"))
        #expect(first.report.platformOutcomes.isEmpty)
        for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: first.directory + "/" + file))
            #expect(try Data(contentsOf: URL(fileURLWithPath: second.directory + "/" + file)) == bytes, "\(file)")
        }
    }

    @Test("a row with a platform reads back with it (recover, merge and report read rows back)")
    func aRowWithAPlatformReadsBack() throws {
        var record = VisitorRecord(
            index: 4, group: "app", flow: "run", arrival: .origin, start: .origin, outcome: .passed, ended: .origin)
        record.platform = "android"
        var row = CSVRowBuilder()
        VisitorRowFormat.encode(record, into: &row)
        let line = row.bytes.dropLast()
        #expect(String(decoding: line, as: UTF8.self).hasSuffix(",android"))
        #expect(VisitorRowFormat.decode(line)?.platform == "android")
        #expect(VisitorRowFormat.header(platform: true).hasSuffix(",tls_ms,platform\n"))
        record.platform = nil
        VisitorRowFormat.encode(record, into: &row)
        #expect(VisitorRowFormat.decode(row.bytes.dropLast())?.platform == nil)
    }
}
