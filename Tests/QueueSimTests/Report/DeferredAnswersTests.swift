import Testing

@testable import QueueSim

/// The poll shortcut counts its answers' per-second figures in one array per class and folds
/// them in when the statistics are recorded (`merge`): the recorded figures must be those of
/// answers counted one at a time, whatever the order, and statuses keep the order first seen.
@Suite("RequestStatistics: answers counted later add up to answers counted at once")
struct DeferredAnswersTests {
    private typealias Status = RequestStatistics.Status

    @Test func foldedAnswersEqualAnswersCountedOneByOne() {
        // (second, milliseconds, status): two latencies, a second status, seconds out of order.
        let answers: [(Int, UInt64, Int)] = [(40, 10, 200), (3, 10, 200), (40, 12, 200), (7, 10, 503), (3, 10, 200)]
        var atOnce = RequestStatistics()
        var later = RequestStatistics()
        for (second, milliseconds, code) in answers {
            atOnce.answered(.queuePage, status: Status(code: code), milliseconds: milliseconds, inSecond: second)
            later.answeredInSecond(.queuePage, status: Status(code: code), milliseconds: milliseconds, second: second)
            later.answeredLatencyOnly(.queuePage, status: Status(code: code), milliseconds: milliseconds, count: 1)
        }
        var recordedAtOnce = RequestStatistics()
        recordedAtOnce.merge(atOnce)
        var recordedLater = RequestStatistics()
        recordedLater.merge(later)

        for ok in [true, false] {
            let expected = recordedAtOnce.answers(.queuePage, ok: ok).nonZero.map { [$0.second, $0.count] }
            #expect(recordedLater.answers(.queuePage, ok: ok).nonZero.map { [$0.second, $0.count] } == expected)
        }
        #expect(recordedAtOnce.answers(.queuePage, ok: true).nonZero.map(\.count) == [2, 2])
        #expect(recordedLater.cells[1].map(\.status.code) == [200, 503])
        #expect(recordedLater.cells[1].map(\.latency.totalCount) == recordedAtOnce.cells[1].map(\.latency.totalCount))
        #expect(
            recordedLater.cells[1].map { $0.perSecond.nonZero.map { [$0.second, $0.count] } }
                == recordedAtOnce.cells[1].map { $0.perSecond.nonZero.map { [$0.second, $0.count] } })
        #expect(
            recordedLater.latencySumMs[1].nonZero.map(\.count) == recordedAtOnce.latencySumMs[1].nonZero.map(\.count))
        #expect(recordedLater.queuePageLatency.sparseBins == recordedAtOnce.queuePageLatency.sparseBins)
        // The live totals do not wait for the fold.
        #expect(later.totals.durations[1] == atOnce.totals.durations[1])
    }
}
