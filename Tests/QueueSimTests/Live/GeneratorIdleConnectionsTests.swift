import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// run.json's `generator.idle_connections_peak`: the most connections held open idle for nobody
/// at once (Android's abandoned enqueue connections), over every loop, by the second.
@Suite("generator: idle connections held at the peak")
struct GeneratorIdleConnectionsTests {
    @Test("a second no change touched keeps its level; loops add up second by second")
    func seriesAddUp() {
        var first = HeldIdleSeries()
        first.record(3, atSecond: 2)
        first.record(5, atSecond: 2)
        first.record(4, atSecond: 2)
        // Nothing changes in seconds 3 and 4: 4 are held through them.
        first.record(1, atSecond: 5)
        first.record(0, atSecond: 6)
        #expect(first.most == [0, 0, 5, 4, 4, 4, 1])
        var second = HeldIdleSeries()
        second.record(6, atSecond: 4)
        second.record(0, atSecond: 9)
        var health = GeneratorHealth()
        health.heldIdle = first
        var other = GeneratorHealth()
        other.heldIdle = second
        health.merge(other)
        // Second 4: 4 on the first loop and 6 on the second, not the first loop's 5 of second 2.
        #expect(health.heldIdle.peak == 10)
        #expect(health.report(loops: 2, cpuSeconds: 1, visitors: 1, requests: 1).idleConnectionsPeak == 10)
    }

    @Test("run.json carries idle_connections_peak only when connections were held, and reads it back")
    func encodedOnlyWhenPresent() throws {
        let none = GeneratorHealth().report(loops: 1, cpuSeconds: 1, visitors: 1, requests: 1)
        #expect(none.idleConnectionsPeak == nil)
        let plain = String(decoding: try SortedJSONEncoder(pretty: true).encode(none), as: UTF8.self)
        #expect(!plain.contains("idle_connections_peak"))
        var held = none
        held.idleConnectionsPeak = 1200
        let bytes = try SortedJSONEncoder(pretty: true).encode(held)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"idle_connections_peak\" : 1200"))
        #expect(try JSONDecoder().decode(GeneratorReport.self, from: Data(bytes)).idleConnectionsPeak == 1200)
    }
}
