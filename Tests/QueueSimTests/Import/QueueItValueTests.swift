import QueueSim
import Testing

@Suite("import: Queue-it's value formats")
struct QueueItValueTests {
    @Test("booleans and numbers travel as strings")
    func stringsAsValues() {
        #expect(QueueItValue.bool("True") == true)
        #expect(QueueItValue.bool("False") == false)
        #expect(QueueItValue.bool("false") == false)
        #expect(QueueItValue.bool("Auto") == nil)
        #expect(QueueItValue.integer("15") == 15)
        #expect(QueueItValue.integer("15.0") == 15)
        #expect(QueueItValue.integer("15.5") == nil)
        #expect(QueueItValue.integer("1e3") == nil)
        #expect(QueueItValue.number("12.5") == 12.5)
    }

    @Test("ISO-8601 with seven fractional digits and Z, an offset, or no zone (UTC)")
    func isoTimes() throws {
        let seven = try #require(QueueItValue.instant("2015-04-28T15:25:46.0000000Z"))
        #expect(seven.description == "2015-04-28T15:25:46Z")
        #expect(seven.millisecondsSinceEpoch == 1_430_234_746_000)
        #expect(QueueItValue.instant("2015-04-28T15:25:46.1234567Z")?.description == "2015-04-28T15:25:46.123Z")
        #expect(QueueItValue.instant("2015-04-28T17:25:46+02:00") == seven)
        #expect(QueueItValue.instant("2015-04-28T15:25:46") == seven)
        #expect(QueueItValue.instant("2024-02-29T00:00:00Z")?.description == "2024-02-29T00:00:00Z")
        for bad in [
            "2015-02-29T00:00:00Z", "2015-04-28 ", "2015-04-28T25:00:00Z", "28/04/2015", "2015-04-28T15:25:46.Z",
        ] {
            #expect(QueueItValue.instant(bad) == nil, "\(bad)")
        }
    }

    @Test(#".NET's \/Date(ms)\/, as sent and as JSON decodes it"#)
    func dotNetDates() {
        let expected = QueueItInstant(millisecondsSinceEpoch: 1_310_669_017_000)
        #expect(QueueItValue.instant(#"\/Date(1310669017000)\/"#) == expected)
        #expect(QueueItValue.instant("/Date(1310669017000)/") == expected)
        #expect(QueueItValue.instant("/Date(1310669017000+0100)/") == expected)
        #expect(QueueItValue.instant("/Date(abc)/") == nil)
        #expect(expected.description == "2011-07-14T18:43:37Z")
    }

    @Test("minutes: a minute's start, and minutes added")
    func minutes() throws {
        let instant = try #require(QueueItInstant(iso8601: "2026-05-01T09:00:59.999Z"))
        #expect(instant.minuteStart.description == "2026-05-01T09:00:00Z")
        #expect(instant.minuteStart.adding(minutes: 61).description == "2026-05-01T10:01:00Z")
        #expect(QueueItInstant(millisecondsSinceEpoch: -1).minuteStart.description == "1969-12-31T23:59:00Z")
    }
}
