import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `.run.pending.json`, written at the start of every run, is `SortedJSONEncoder`'s compact
/// JSON (issue 51: Foundation's `JSONEncoder` spent 5 % of a 2,000-group run writing it): the
/// bytes `JSONEncoder` writes with `[.sortedKeys, .withoutEscapingSlashes]`, and recovery reads
/// back the run it describes.
@Suite("report recovery: the pending file")
struct PendingRunFileTests {
    /// A run of `groups` groups with a recorded configuration; paths hold slashes.
    static func description(groups: Int) throws -> RunDescription {
        let folder = try RunFixture.makeFolder()
        let names = (1...groups).map { "g\($0)" }
        let scenario = try RunFixture.scenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: \(groups * 2) } ] }
            visitors:
            \(names.map { "  - { name: \($0), weight: 1 }" }.joined(separator: "\n"))
            waitingRoom: { outflow: 600/min }
            """, folder: folder)
        var description = describeRun(groups: names, runId: "20250301T120000Z-pend")
        description.configuration = RunConfiguration(
            scenario: scenario, overrides: ["seed": "7"], plannedVisitors: groups * 2)
        return description
    }

    @Test(arguments: [1, 40])
    func thePendingFileIsSortedCompactJSONWithPlainSlashes(groups: Int) throws {
        let directory = try makeReportDirectory()
        let description = try Self.description(groups: groups)
        let startedAt = Date(timeIntervalSince1970: 1_700_000_000.125)
        _ = try Recorder(directory: directory, description: description, startedAt: startedAt)
        let written = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + Recorder.pendingFile))

        let expected = PendingRun(description: description, startedAt: startedAt)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: written, as: UTF8.self) == String(decoding: try foundation.encode(expected), as: UTF8.self)
                + "\n")
        #expect(String(decoding: written, as: UTF8.self).contains(#""scenarioFile":"scenarios/launch.yaml""#))
        #expect(try JSONDecoder().decode(PendingRun.self, from: written) == expected)
    }

    /// A pending file from before (slashes escaped, as `JSONEncoder` wrote them) still reads.
    @Test func anOlderPendingFileWithEscapedSlashesStillReads() throws {
        let description = try Self.description(groups: 3)
        let pending = PendingRun(description: description, startedAt: Date(timeIntervalSince1970: 0))
        let older = JSONEncoder()
        older.outputFormatting = [.sortedKeys]
        let bytes = try older.encode(pending)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#"scenarios\/launch.yaml"#))
        #expect(try JSONDecoder().decode(PendingRun.self, from: bytes) == pending)
    }
}
