import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// metrics.prom is handed to its file as the bytes it is built in (`emitBytes`), not as
/// strings made of them and turned back into bytes (issue 51): the same text either way.
@Suite("Metrics: metrics.prom's byte pieces")
struct MetricsFileBytesTests {
    @Test func theBytePiecesAreTheTextPieces() {
        let groups = (1...300).map { "g\($0)" }
        var series = RunMetricsSeries(groupNames: groups)
        for (index, group) in groups.enumerated() where index % 3 != 1 {
            series.add(
                queuedVisitor(
                    index, group: group, arrival: index * 37 % 40_000, enqueueMs: 20, waitMs: index * 911 % 50_000))
        }
        let identity = MetricsSnapshot.Identity(runId: "bytes", scenario: "s", shard: "0/1")
        var text = ""
        MetricsFile.write(
            series, seconds: 95, timestampBase: 1_764_000_000, identity: identity, answers: RequestStatistics()
        ) { text += $0 }
        var bytes: [UInt8] = []
        var pieces = 0
        MetricsFile.write(
            series, seconds: 95, timestampBase: 1_764_000_000, identity: identity, answers: RequestStatistics(),
            emitBytes: {
                bytes.append(contentsOf: $0)
                pieces += 1
            })
        #expect(text.utf8.count > MetricsExposition.piece * 4)
        #expect(pieces > 4, "written as it is made, not held whole")
        #expect(bytes == Array(text.utf8))
        #expect(text.hasSuffix("# EOF\n"))
    }

    @Test func aGroupsChangeSecondsAreSortedWithoutRepeats() {
        let lists: [[(second: Int, count: Int)]] = [[(3, 1), (9, 2)], [], [(1, 1), (3, 4), (40, 1)], [(9, 1)]]
        #expect(MetricsFileGroups.seconds(of: lists) == [1, 3, 9, 40])
        #expect(MetricsFileGroups.seconds(of: [[(7, 1)]]) == [7])
        #expect(MetricsFileGroups.seconds(of: [[], []]).isEmpty)
    }
}
