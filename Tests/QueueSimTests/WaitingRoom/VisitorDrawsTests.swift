import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// A visitor's faults and latency jitter come from its own draws, whichever order the room
/// gets its requests in: a sharded run interleaves visitors differently from a single process.
@Suite("Room draws per visitor")
struct VisitorDrawsTests {
    private static let faults = [
        FaultRule(endpoint: .enqueue, rate: 0.5, effect: .status(503)),
        FaultRule(endpoint: .queuePage, rate: 0.3, effect: .latency(.milliseconds(40), jitter: .milliseconds(30))),
    ]

    private func room() -> WaitingRoomService {
        WaitingRoomService(
            configuration: RoomFixture.configuration(
                outflowPerMinute: 60, faults: Self.faults,
                latency: LatencySettings(
                    enqueue: .milliseconds(20), queuePage: .milliseconds(10), jitter: .milliseconds(8))
            ))
    }

    /// What one visitor met: per request, fault or not, and the delay. It enqueues until it is
    /// admitted (at most 6 tries), then polls its queue page `polls` times.
    private struct Journey: Equatable {
        var answers: [String] = []
    }

    /// Runs visitors' requests round-robin in the given visitor order, one request per turn.
    private func run(order: [Int], polls: Int = 4) -> [Int: Journey] {
        let service = room()
        var journeys: [Int: Journey] = [:]
        var queueIds: [Int: String] = [:]
        var enqueueTries: [Int: Int] = [:]
        var pollsDone: [Int: Int] = [:]
        var time = 0.0
        for _ in 0..<(6 + polls) {
            for visitor in order {
                time += 0.001
                let reply: RoomReply
                if let queueId = queueIds[visitor] {
                    guard pollsDone[visitor, default: 0] < polls else { continue }
                    pollsDone[visitor, default: 0] += 1
                    reply = service.handle(
                        RoomFixture.get("https://acme.queue-it.net/queue/acme/spring-launch?q=\(queueId)"), body: [],
                        at: RoomFixture.at(time))
                } else {
                    guard enqueueTries[visitor, default: 0] < 6 else { continue }
                    enqueueTries[visitor, default: 0] += 1
                    reply = service.handle(
                        RoomFixture.enqueueRequest(),
                        body: RoomFixture.body(#"{"userId":"visitor-\#(visitor)","sdkVersion":"iOS-3.5.2"}"#),
                        at: RoomFixture.at(time))
                }
                guard let answer = reply.answer else {
                    Issue.record("no answer")
                    continue
                }
                // The draws: whether a fault answered, and the delay. Whether the turn has come
                // (200 or 302) is the queue's shared state, which does depend on the order.
                let drawn = answer.head.status.code == 503 ? "503" : "answered"
                journeys[visitor, default: Journey()].answers.append("\(drawn) \(answer.delay)")
                if answer.head.status.code == 200, queueIds[visitor] == nil,
                    let id = try? #require(
                        FlatJSONObject.parseMembers(Array(answer.body.utf8), keeping: ["QueueId"])?["QueueId"])
                {
                    if case .string(let text) = id { queueIds[visitor] = text }
                }
            }
        }
        return journeys
    }

    @Test("each visitor meets the same faults and delays, whatever order the room hears visitors in")
    func sameDrawsInAnyOrder() {
        let single = run(order: Array(0..<12))
        let interleaved = run(order: [11, 0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8])
        let alone = run(order: [4])
        #expect(single == interleaved)
        #expect(single[4] == alone[4])
        // The draws are real: some enqueues failed, some polls were delayed, not all alike.
        let answers = single.values.flatMap(\.answers)
        #expect(answers.contains { $0.hasPrefix("503") })
        #expect(answers.contains { $0.hasPrefix("answered") })
        #expect(Set(answers).count > 10)
    }

    @Test("without draws that matter the room keeps no per-visitor state and numbers requests as before")
    func noDrawsNoState() {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        _ = service.handle(
            RoomFixture.enqueueRequest(), body: RoomFixture.body(#"{"userId":"u"}"#), at: RoomFixture.at(0))
        #expect(service.requestCount == 1)
        #expect(service.faults.drawsAreIrrelevant)
    }
}

/// The room's per-visitor request counts: the table must count as a dictionary does, through
/// its growth and with keys that share a home place.
@Suite("Request count table")
struct RequestCountTableTests {
    @Test("counts as a dictionary does, across growth")
    func countsAsADictionary() {
        var table = RequestCountTable()
        var expected: [UInt64: UInt32] = [:]
        var random = SystemRandomNumberGenerator()
        // Keys with the top bit set, as visitor keys are; some repeated often, some once.
        let keys = (0..<5_000).map { _ in random.next() | 1 << 63 }
        for step in 0..<40_000 {
            let key = keys[step % 7 == 0 ? step % keys.count : Int(random.next() % 100)]
            let amount = UInt32(step % 3 == 0 ? 5 : 1)
            #expect(table.add(amount, to: key) == expected[key, default: 0])
            expected[key, default: 0] &+= amount
        }
        for key in keys { #expect(table.count(of: key) == expected[key, default: 0]) }
        #expect(table.count(of: 1 << 63 | 12345) == expected[1 << 63 | 12345, default: 0])
    }

    @Test("keys with the same home place each keep their count")
    func collidingKeys() {
        var table = RequestCountTable()
        // Multiples of 2^32 · k share the low bits the hash reads less of; and a long run of
        // neighbours fills consecutive places.
        let keys = (1...3_000).map { UInt64($0) << 40 | 1 << 63 }
        for (index, key) in keys.enumerated() { #expect(table.add(UInt32(index), to: key) == 0) }
        for (index, key) in keys.enumerated() { #expect(table.count(of: key) == UInt32(index)) }
        #expect(table.count(of: 1 << 63) == 0)
    }
}
