import Foundation
import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// `RoomStartCheck`: what a run concludes from the room's answer, and the run id shared by the
/// processes of one common start.
@Suite("RoomStartCheck and RunId.shared")
struct RoomStartCheckTests {
    static let runStart = Date(timeIntervalSince1970: 1_796_148_000)  // 2026-12-01T18:00:00Z

    private func check(roomAt offset: TimeInterval?, ignoring: Bool = false) -> RoomStartCheck {
        var check = RoomStartCheck(
            endpoint: "http://127.0.0.1:8080", runSecondZero: Self.runStart, ignoresRoomStart: ignoring)
        check.roomSecondZero = offset.map { Self.runStart.addingTimeInterval($0) }
        return check
    }

    @Test("within 1 s is aligned; more is refused for a shard, ignored with the flag, warned for a whole run")
    func tolerance() {
        #expect(check(roomAt: 1.0).finding(isShard: true) == .aligned)
        #expect(check(roomAt: -1.0).refusal(isShard: true) == nil)
        #expect(check(roomAt: -1.001).finding(isShard: true) == .misaligned)
        let late = check(roomAt: -31.2)
        #expect(
            late.refusal(isShard: true)?.contains(
                "started its timeline at 2026-12-01T17:59:28.800Z (its Queuesim-Room-Start), 31.2 s before this shard's second 0 2026-12-01T18:00:00.000Z"
            ) == true, "\(late.refusal(isShard: true) ?? "")")
        #expect(late.refusal(isShard: false) == nil, "a whole run is warned, not refused")
        #expect(late.note(isShard: false)?.hasPrefix("warning: the room at http://127.0.0.1:8080") == true)
        let ignored = check(roomAt: 2.5, ignoring: true)
        #expect(ignored.refusal(isShard: true) == nil)
        #expect(ignored.finding(isShard: true) == .ignored)
        #expect(ignored.note(isShard: true)?.contains("2.5 s after this run's second 0") == true)
        #expect(ignored.entry(isShard: true).offsetMs == 2500)
    }

    @Test("the header alone is enough; neither header nor status is unchecked, with the status code")
    func readingTheAnswer() throws {
        var headerOnly = check(roomAt: nil)
        var head = HTTPResponse(status: .notFound)
        head.headerFields[try #require(HTTPField.Name(RoomAnnouncement.startHeader))] = "2026-12-01T18:00:00.400Z"
        headerOnly.take(.success(IncomingResponse(head: head, body: Array("not found".utf8))))
        #expect(headerOnly.finding(isShard: true) == .aligned)
        #expect(headerOnly.offset == .milliseconds(400))
        #expect(headerOnly.status == nil)

        var plain = check(roomAt: nil)
        plain.take(.success(IncomingResponse(head: HTTPResponse(status: .notFound))))
        #expect(plain.finding(isShard: true) == .unchecked)
        #expect(plain.refusal(isShard: true) == nil)
        let entry = plain.entry(isShard: true)
        #expect(entry.result == "unchecked" && entry.roomSecondZero == nil && entry.offsetMs == nil)
        #expect(entry.reason?.contains("answered 404: not a queuesim serve") == true, "\(entry)")

        var failed = check(roomAt: nil)
        failed.take(.failure(.timedOut))
        #expect(failed.finding(isShard: true) == .unchecked)
        #expect(failed.note(isShard: true)?.hasPrefix("note: could not check the room's second 0") == true)
    }

    @Test("a status page decodes back, and another server's JSON is not one")
    func statusRoundTrip() throws {
        let scenario = try ScenarioLoader.load(
            yaml: """
                version: 1
                name: launch
                target: { customerId: acme, waitingRoomId: launch }
                arrivals: { phases: [ { burst: 10 } ] }
                waitingRoom: { mode: queue, eventStart: 10s, outflow: 5000/min }
                """, path: "launch.yaml")
        let status = RoomStatus(scenario: scenario, secondZero: Self.runStart, commonStart: true, runId: "r")
        #expect(status.outflow == "5,000/min")
        #expect(status.preQueue)
        #expect(status.eventStart == "2026-12-01T18:00:10.000Z")
        let bytes = try status.json()
        #expect(RoomStatus.decode(bytes) == status)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("dev-secret"))
        #expect(RoomStatus.decode(Array(#"{"format":"other","second_zero":"x"}"#.utf8)) == nil)
    }

    @Test("one run id for one scenario file, seed and start; another of any of them, another id")
    func sharedRunId() {
        let sha = String(repeating: "0f", count: 32)
        let id = RunId.shared(scenarioSHA256: sha, seed: 42, startAt: Self.runStart)
        #expect(id == RunId.shared(scenarioSHA256: sha, seed: 42, startAt: Self.runStart))
        #expect(id.hasPrefix("20261201T180000Z-") && id.count == "20261201T180000Z-".count + 4, "\(id)")
        #expect(id != RunId.shared(scenarioSHA256: sha, seed: 43, startAt: Self.runStart))
        #expect(id != RunId.shared(scenarioSHA256: sha, seed: 42, startAt: Self.runStart.addingTimeInterval(1)))
        #expect(
            id != RunId.shared(scenarioSHA256: String(repeating: "1f", count: 32), seed: 42, startAt: Self.runStart))
    }
}
