import Testing

@testable import QueueSim

/// visitors.csv's `protocol` column (issue 55, item 1): what a visitor's answers came over, in
/// the order first used, and rows that read back with it whatever optional columns they have
/// (recover reads spool rows, which have no header; merge and compare read them too).
@Suite("visitors.csv's protocol column: rows and figures")
struct ProtocolColumnTests {
    @Test("the protocols a visitor spoke, in the order first used")
    func spokenInOrder() {
        var protocols = SpokenProtocols()
        #expect(protocols.text == "")
        protocols.note(.h2)
        protocols.note(.h2)
        #expect(protocols.text == "h2")
        protocols.note(.http1)
        #expect(protocols.text == "h2+http/1.1")
        var apiFirst = SpokenProtocols()
        apiFirst.note(.http1)
        #expect(apiFirst.text == "http/1.1")
        apiFirst.note(.h2)
        #expect(apiFirst.text == "http/1.1+h2")
    }

    @Test("a visitor in flight keeps its group index beside the protocols it spoke")
    func inFlightBits() {
        var visitor = FirstHandshakeTests.visitor(group: 1_999)
        visitor.settleFirstHandshake(nil)
        visitor.noteSpoken(.http1)
        visitor.noteSpoken(.h2)
        #expect(visitor.groupIndex == 1_999)
        #expect(visitor.spokenProtocols.text == "http/1.1+h2")
        #expect(visitor.firstHandshake.settled)
    }

    static func row(platform: String?, comebacks: Int?, protocols: String?) -> VisitorRecord {
        var record = VisitorRecord(
            index: 4, group: "app", flow: "run", arrival: .origin, start: .origin, outcome: .passed, ended: .origin)
        record.platform = platform
        record.comebacks = comebacks
        record.spokenProtocols = protocols
        return record
    }

    @Test(
        "every mix of the optional columns reads back as written",
        arguments: [
            (nil, nil, "h2"), (nil, nil, ""), ("ios", nil, "http/1.1"), ("android", 2, "h2+http/1.1"),
            ("", nil, ""), ("", 0, ""), (nil, 3, "http/1.1+h2"), ("ios", nil, nil), (nil, 1, nil),
        ] as [(String?, Int?, String?)])
    func readsBack(platform: String?, comebacks: Int?, protocols: String?) throws {
        let record = Self.row(platform: platform, comebacks: comebacks, protocols: protocols)
        var row = CSVRowBuilder()
        VisitorRowFormat.encode(record, into: &row)
        let decoded = try #require(VisitorRowFormat.decode(row.bytes.dropLast()))
        #expect(decoded.platform == platform)
        #expect(decoded.comebacks == comebacks)
        #expect(decoded.spokenProtocols == protocols)
        var again = CSVRowBuilder()
        VisitorRowFormat.encode(decoded, into: &again)
        #expect(again.bytes == row.bytes)
    }

    @Test("the column is last, and named in every header queuesim writes")
    func header() {
        #expect(
            VisitorRowFormat.header(platform: true, comebacks: true, protocols: true)
                .hasSuffix(",tls_ms,platform,comebacks,protocol\n"))
        #expect(VisitorRowFormat.header(platform: false).hasSuffix(",tls_ms\n"))
        #expect(VisitorRowFormat.headers.count == 8)
        #expect(VisitorRowFormat.headers.filter { $0.hasSuffix(",protocol") }.count == 4)
    }

    @Test("a protocol cell queuesim never writes, or a column out of order, is not a row of ours")
    func foreignTails() {
        var row = CSVRowBuilder()
        VisitorRowFormat.encode(Self.row(platform: nil, comebacks: nil, protocols: nil), into: &row)
        let base = String(decoding: row.bytes.dropLast(), as: UTF8.self)
        #expect(VisitorRowFormat.decode(Array((base + ",h2,ios").utf8)[...]) == nil)
        #expect(VisitorRowFormat.decode(Array((base + ",h2,3").utf8)[...]) == nil)
        #expect(VisitorRowFormat.decode(Array((base + ",ios,ios").utf8)[...]) == nil)
    }

    @Test("endpoints at one origin are one line: their connections and requests together")
    func oneOriginOneLine() {
        let tally = ConnectionProtocolTally()
        tally.connectionEnded(endpoint: 0, spoke: "h2", requests: 2)
        tally.connectionEnded(endpoint: 0, spoke: "h2", requests: 1)
        tally.connectionEnded(endpoint: 1, spoke: "h2", requests: 3)
        tally.connectionEnded(endpoint: 2, spoke: "http/1.1", requests: 1)
        let origins = ["https://127.0.0.1:8443", "https://127.0.0.1:8443", "https://api.example"]
        let figures = tally.figures(origins: origins) ?? []
        #expect(figures.map(\.endpoint) == ["https://127.0.0.1:8443", "https://api.example"])
        #expect(
            figures.first?.summary
                == "https://127.0.0.1:8443: h2 on 3 connections; 2 requests per connection (at most 3 on one connection)"
        )
        // One request on each connection: "1 request", not "1 requests".
        #expect(
            figures.last?.summary
                == "https://api.example: http/1.1 on 1 connection; 1 request per connection (at most 1 on one connection)"
        )
    }
}
