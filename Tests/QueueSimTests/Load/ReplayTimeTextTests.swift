import Testing

@testable import QueueSim

/// The times replayed files write, read without the machine's time zone or locale.
@Suite("Replay: reading times")
struct ReplayTimeTextTests {
    static func iso(_ text: String) -> Int64? { ReplayTimeText.iso(Array(text.utf8)) }
    static func nginx(_ text: String) -> Int64? { ReplayTimeText.nginx(Array(text.utf8)) }
    static func epoch(_ text: String) -> Int64? { ReplayTimeText.epoch(Array(text.utf8)) }

    @Test func isoTimesWithZonesFractionsAndWithout() {
        let nine: Int64 = 1_777_626_000 * 1_000_000_000  // 2026-05-01T09:00:00Z
        #expect(Self.iso("2026-05-01T09:00:00Z") == nine)
        #expect(Self.iso("2026-05-01T09:00:00") == nine)
        #expect(Self.iso("2026-05-01 09:00") == nine)
        #expect(Self.iso("2026-05-01T11:00:00+02:00") == nine)
        #expect(Self.iso("2026-05-01T04:30:00-0430") == nine)
        let quarter: Int64 = nine + 250_000_000
        #expect(Self.iso("2026-05-01T09:00:00.250Z") == quarter)
        #expect(Self.iso("2026-05-01T09:00:00.0000000Z") == nine)
        let cut: Int64 = nine + 123_456_789
        #expect(Self.iso("2026-05-01T09:00:00.1234567891Z") == cut)
        #expect(Self.iso("2024-02-29T00:00:00Z") != nil)
        for bad in ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-05-01T24:00:00Z", "2026-05-01", "9:00", ""] {
            #expect(Self.iso(bad) == nil, "\(bad)")
        }
    }

    @Test func nginxTimesInTheirOwnZone() {
        // Apache's documented example: 10/Oct/2000:13:55:36 -0700 is 20:55:36 UTC.
        #expect(Self.nginx("10/Oct/2000:13:55:36 -0700") == Self.iso("2000-10-10T20:55:36Z"))
        #expect(Self.nginx("01/May/2026:09:00:00 +0000") == Self.iso("2026-05-01T09:00:00Z"))
        #expect(Self.nginx("01/May/2026:09:00:00.5 +0000") == Self.iso("2026-05-01T09:00:00.5Z"))
        for bad in ["10/Foo/2000:13:55:36 -0700", "10/Oct/2000:13:55:36", "10/Oct/2000 13:55:36 -0700"] {
            #expect(Self.nginx(bad) == nil, "\(bad)")
        }
    }

    @Test func epochSecondsWithFractions() {
        let whole: Int64 = 1_714_554_000_000_000_000
        let quarter: Int64 = 1_714_554_000_250_000_000
        #expect(Self.epoch("1714554000") == whole)
        #expect(Self.epoch("1714554000.25") == quarter)
        for bad in ["-1", "1e9", "17145540001234", "1714554000.", "abc"] {
            #expect(Self.epoch(bad) == nil, "\(bad)")
        }
    }

    @Test func messagesWriteTimesBackInISO() {
        for text in ["2000-10-10T20:55:36Z", "2024-02-29T23:59:59.5Z"] {
            let time: Int64? = Self.iso(text)
            #expect(time.map(ReplayTimeText.isoText) == text)
        }
        #expect(ReplayTimeText.isoText(0) == "1970-01-01T00:00:00Z")
    }
}
