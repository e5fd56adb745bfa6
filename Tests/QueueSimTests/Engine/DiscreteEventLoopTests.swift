import QueueClientCore
import Testing

@testable import QueueSim

@Suite("Discrete-event loop")
struct DiscreteEventLoopTests {
    private func drain(_ loop: inout DiscreteEventLoop<String>) -> [(RunInstant, String)] {
        var fired: [(RunInstant, String)] = []
        while let (time, payload) = loop.step() { fired.append((time, payload)) }
        return fired
    }

    @Test("Events fire in time order, whatever order they were scheduled in")
    func timeOrder() {
        var loop = DiscreteEventLoop<String>()
        loop.schedule("c", at: at(300))
        loop.schedule("a", at: at(100))
        loop.schedule("d", at: at(400))
        loop.schedule("b", at: at(200))
        let fired = drain(&loop)
        #expect(fired.map(\.1) == ["a", "b", "c", "d"])
        #expect(fired.map(\.0) == [at(100), at(200), at(300), at(400)])
        #expect(loop.now == at(400))
    }

    @Test("Events at the same instant fire in the order they were scheduled")
    func sequenceBreaksTies() {
        var loop = DiscreteEventLoop<String>()
        // Many ties interleaved with other times: a heap that is not stable would reorder them.
        for index in 0..<200 {
            loop.schedule("tie-\(index)", at: at(500))
            loop.schedule("early-\(index)", at: at(index))
        }
        let fired = drain(&loop).map(\.1)
        #expect(Array(fired.prefix(200)) == (0..<200).map { "early-\($0)" })
        #expect(Array(fired.suffix(200)) == (0..<200).map { "tie-\($0)" })
    }

    @Test("An event scheduled while others are pending at the same instant goes after them")
    func scheduledDuringStep() {
        var loop = DiscreteEventLoop<String>()
        loop.schedule("first", at: at(10))
        loop.schedule("second", at: at(10))
        let (time, payload) = loop.step()!
        #expect(payload == "first")
        loop.schedule("third", at: time)
        #expect(drain(&loop).map(\.1) == ["second", "third"])
    }

    @Test("The past is clamped to now; advance never goes backwards")
    func clampsThePast() {
        var loop = DiscreteEventLoop<String>()
        loop.advance(to: at(1000))
        loop.advance(to: at(10))
        #expect(loop.now == at(1000))
        loop.schedule("late", at: at(5))
        #expect(loop.nextTime == at(1000))
        #expect(loop.pendingCount == 1)
        #expect(loop.step()?.time == at(1000))
        #expect(loop.isEmpty)
        #expect(loop.step() == nil)
    }

    @Test("The calendar fires in (time, sequence) order, near and days ahead, while scheduling")
    func calendarKeepsTheOneHeapOrder() {
        var random = SeededRandom(seed: 42, purpose: .arrivalJitter, index: 0)
        var loop = DiscreteEventLoop<Int>()
        // The reference: every (time, sequence) ever scheduled, fired smallest first.
        var pending: [(time: RunInstant, sequence: Int)] = []
        var fired: [Int] = []
        var expected: [Int] = []
        var sequence = 0
        func schedule(after nanoseconds: Int64, from now: RunInstant) {
            let time = now + .nanoseconds(nanoseconds)
            loop.schedule(sequence, at: time)
            pending.append((time, sequence))
            sequence += 1
        }
        // Offsets: ties at the same instant, sub-second, a few seconds, slot edges, and far
        // beyond the buckets' window (days), which must still come out in order.
        let offsets: [Int64] = [
            0, 0, 1, 999_999, 20_000_000, 1_152_921_504, 1_152_921_505, 5_000_000_000, 3_600_000_000_000,
            9_999_000_000_000, 200_000_000_000_000,
        ]
        for _ in 0..<2000 { schedule(after: offsets[Int(random.next() % UInt64(offsets.count))], from: .origin) }
        while let (time, payload) = loop.step() {
            fired.append(payload)
            if sequence < 20_000 {
                for _ in 0..<Int(random.next() % 3) {
                    schedule(after: offsets[Int(random.next() % UInt64(offsets.count))], from: time)
                }
            }
        }
        pending.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        expected = pending.map(\.sequence)
        #expect(fired.count == sequence)
        #expect(fired == expected)
        #expect(loop.pendingCount == 0)
    }
}

/// The calendar's heap gives its elements back in order, heapified or inserted, mixed with pops.
@Suite("Four-ary heap")
struct QuaternaryHeapTests {
    @Test("pops in ascending order, built from an array or by inserts, with pops in between")
    func popsInOrder() {
        var random = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 4, 5, 6, 17, 1_000] {
            let values = (0..<count).map { _ in Int(random.next() % 500) }
            var built = QuaternaryHeap(values)
            var popped: [Int] = []
            while let value = built.popMin() { popped.append(value) }
            #expect(popped == values.sorted())

            var grown = QuaternaryHeap<Int>()
            var expected: [Int] = []
            var out: [Int] = []
            for (index, value) in values.enumerated() {
                grown.insert(value)
                expected.append(value)
                if index % 3 == 2, let least = grown.popMin() {
                    #expect(least == expected.min())
                    expected.remove(at: expected.firstIndex(of: least)!)
                    out.append(least)
                }
            }
            #expect(grown.count == expected.count)
            while let value = grown.popMin() { out.append(value) }
            #expect(out.count == values.count)
            #expect(grown.isEmpty && grown.min == nil)
        }
    }
}
