import QueueClientCore
import Testing

@testable import QueueSim

/// A run has a few distinct timeouts (an Android visitor's enqueue call has 10 s, its page loads
/// wait until `maxWait`): their deadlines, set in time order per timeout, interleave, and each
/// queue keeps one timeout's in order, so none goes to the calendar and they come out in time
/// order.
@Suite("RequestDeadlines")
struct RequestDeadlinesTests {
    @Test("interleaved timeouts take a queue each and come out in time order")
    func interleaved() {
        var deadlines = RequestDeadlines()
        var expected: [(at: RunInstant, serial: UInt32)] = []
        var serial: UInt32 = 0
        for second in 0..<50 {
            let now = RunInstant.origin + .seconds(second)
            for timeout in [Duration.seconds(10), .seconds(600), .seconds(60)] {
                serial += 1
                let deadline = RequestDeadlines.Deadline(at: now + timeout, slot: Int(serial), serial: serial)
                let queued = deadlines.append(deadline)
                #expect(queued, "refused \(timeout) at \(second) s")
                expected.append((deadline.at, serial))
            }
        }
        var order: [UInt32] = []
        while let first = deadlines.first(awaited: { _, _ in true }) {
            order.append(first.serial)
            deadlines.removeFirst()
        }
        let sorted = expected.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
        #expect(order == sorted.map(\.element.serial))
    }

    @Test("answered requests leave from the front; a fifth order is refused to the calendar")
    func answeredAndRefused() {
        var deadlines = RequestDeadlines()
        // Four queues, each ending later than the next deadline: the fifth is refused.
        for (index, seconds) in [40, 30, 20, 10].enumerated() {
            let queued = deadlines.append(
                .init(at: .origin + .seconds(seconds), slot: index, serial: UInt32(index + 1)))
            #expect(queued)
        }
        let refused = !deadlines.append(.init(at: .origin + .seconds(5), slot: 9, serial: 9))
        #expect(refused)
        // Serials 3 and 4 (20 s, 10 s) were answered: the earliest awaited is 30 s.
        let first = deadlines.first { _, serial in serial <= 2 }?.serial
        #expect(first == 2)
    }
}
