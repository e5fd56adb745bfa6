import Foundation
import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// The HTTP semantics of the room, called in-process exactly as the virtual-time runner does.
@Suite struct WaitingRoomServiceTests {
    private func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    private func enqueue(_ service: WaitingRoomService, body: String = "{\"userId\":\"u1\"}", at seconds: Double = 0)
        -> (head: HTTPResponse, body: [String: Any])
    {
        let reply = service.handle(
            RoomFixture.enqueueRequest(), body: RoomFixture.body(body), at: RoomFixture.at(seconds))
        let answer = reply.answer!
        return (answer.head, json(answer.body))
    }

    @Test func enqueueThenPollsThenRedirectWithAValidToken() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration(outflowPerMinute: 60))
        var queueURLs: [String] = []
        for _ in 0..<3 {
            let (head, body) = enqueue(service)
            #expect(head.status == .ok)
            #expect(body["QueueitToken"] is NSNull)
            #expect(body["EventTargetUrl"] as? String == "https://acme.example/launch")
            queueURLs.append(try #require(body["QueueUrl"] as? String))
        }
        #expect(queueURLs[2].hasPrefix("https://acme.queue-it.net/queue/acme/spring-launch?q="))
        // Third in line at 60/min (turns at 0, 1 and 2 s): at 0.5 s one user is ahead, and
        // Retry-After is the whole seconds up to its turn.
        let waiting = try #require(
            service.handle(RoomFixture.get(queueURLs[2]), body: [], at: RoomFixture.at(0.5)).answer)
        #expect(waiting.head.status == .ok)
        #expect(waiting.head.headerFields[.retryAfter] == "2")
        let status = json(waiting.body)
        #expect(status["position"] as? Int == 2 && status["usersAhead"] as? Int == 1)
        // The turn is 1.5 s away: the expected wait says so, and Retry-After is it rounded up.
        #expect(status["expectedWaitSeconds"] as? Double == 1.5)
        let turn = try #require(service.handle(RoomFixture.get(queueURLs[2]), body: [], at: RoomFixture.at(2)).answer)
        #expect(turn.head.status == .found)
        let location = try #require(turn.head.headerFields[.location])
        #expect(location.hasPrefix("https://acme.example/launch?queueittoken=e_spring-launch~q_"))
        let token = String(location.split(separator: "=", maxSplits: 1)[1])
        let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "spring-launch")
        let epoch = WaitingRoomConfiguration.virtualEpochUnixSeconds
        let parsed = try validator.validate(token, nowUnixSeconds: epoch + 2).get()
        #expect(parsed.expiryUnixSeconds == epoch + 2 + 180)
        #expect(parsed.redirectType == "queue")
        #expect(queueURLs[2].hasSuffix("q=\(parsed.queueId!)"))
        #expect(validator.validate(token, nowUnixSeconds: epoch + 183) == .failure(.timestamp))
    }

    /// The enqueue answer is written from parts made once per room; its bytes are those of the
    /// room's JSON writer over the five members in their order, with and without a token (an
    /// event target URL with characters to escape).
    @Test("the enqueue answer's bytes", arguments: [RoomMode.queue, .safetynet])
    func enqueueAnswerBytes(mode: RoomMode) throws {
        var configuration = RoomFixture.configuration(mode: mode)
        configuration.eventTargetURL = "https://acme.example/launch?\"quoted\"&tab=\t"
        let service = WaitingRoomService(configuration: configuration)
        let answer = try #require(
            service.handle(RoomFixture.enqueueRequest(), body: RoomFixture.body("{\"userId\":\"u1\"}"), at: .origin)
                .answer)
        let object = json(answer.body)
        let queueId = try #require(object["QueueId"] as? String)
        let token = object["QueueitToken"] as? String
        #expect((token != nil) == (mode == .safetynet))
        let expected = RoomJSON.object([
            ("QueueId", .string(queueId)),
            ("QueueUrl", .string(try #require(object["QueueUrl"] as? String))),
            ("QueueUrlTTLInMinutes", .int(30)),
            ("EventTargetUrl", .string(configuration.eventTargetURL)),
            ("QueueitToken", token.map(RoomJSON.Value.string) ?? .null),
        ])
        #expect(Array(answer.body.utf8) == expected, "\(answer.body)")
        #expect(object["EventTargetUrl"] as? String == configuration.eventTargetURL)
    }

    @Test func safetynetUnderTheOutflowGivesATokenAtOnce() {
        let service = WaitingRoomService(configuration: RoomFixture.configuration(mode: .safetynet))
        let (head, body) = enqueue(service)
        #expect(head.status == .ok)
        #expect((body["QueueitToken"] as? String)?.contains("~rt_safetynet~h_") == true)
    }

    @Test func disabledModeGivesADisabledToken() {
        let service = WaitingRoomService(configuration: RoomFixture.configuration(mode: .disabled))
        #expect((enqueue(service).body["QueueitToken"] as? String)?.contains("~rt_disabled~") == true)
    }

    @Test func proxyDomainAndPrefixAreEnforced() throws {
        let service = WaitingRoomService(
            configuration: RoomFixture.configuration(domain: "q.shop.example", prefix: "/waiting/"))
        let right = RoomFixture.enqueueRequest(
            host: "q.shop.example:443", path: "/waiting/api/mobileapp/queue/acme/spring-launch/enqueue")
        let ok = try #require(service.handle(right, body: [], at: .origin).answer)
        #expect(ok.head.status == .ok)
        #expect(json(ok.body)["QueueUrl"] as? String != nil)
        #expect(
            (json(ok.body)["QueueUrl"] as! String).hasPrefix(
                "https://q.shop.example/waiting/queue/acme/spring-launch?q="))
        let wrongHost = RoomFixture.enqueueRequest(
            host: "acme.queue-it.net", path: "/waiting/api/mobileapp/queue/acme/spring-launch/enqueue")
        #expect(service.handle(wrongHost, body: [], at: .origin).answer?.head.status == .notFound)
        let noPrefix = RoomFixture.enqueueRequest(host: "q.shop.example")
        #expect(service.handle(noPrefix, body: [], at: .origin).answer?.head.status == .notFound)
        // The queue page follows the same rules.
        let queueURL = json(ok.body)["QueueUrl"] as! String
        #expect(service.handle(RoomFixture.get(queueURL), body: [], at: .origin).answer?.head.status == .found)
    }

    @Test func unknownCustomerOrRoomIs404WithAJSONError() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        let other = RoomFixture.enqueueRequest(path: "/api/mobileapp/queue/acme/other-room/enqueue")
        let answer = try #require(service.handle(other, body: [], at: .origin).answer)
        #expect(answer.head.status == .notFound)
        #expect((json(answer.body)["error"] as? String)?.contains("other-room") == true)
        #expect(answer.head.headerFields[.contentType]?.hasPrefix("application/json") == true)
        // The ids compare without case; a longer or shorter one is another room.
        let capitals = RoomFixture.enqueueRequest(path: "/api/mobileapp/queue/ACME/Spring-Launch/enqueue")
        #expect(service.handle(capitals, body: [], at: .origin).answer?.head.status == .ok)
        for path in [
            "/api/mobileapp/queue/acm/spring-launch/enqueue", "/api/mobileapp/queue/acme/spring-launchx/enqueue",
        ] {
            let wrong = RoomFixture.enqueueRequest(path: path)
            #expect(service.handle(wrong, body: [], at: .origin).answer?.head.status == .notFound, "\(path)")
        }
    }

    @Test func inviteOnlyAcceptsAListedKeyAndRefusesAForgedOne() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration(inviteOnly: true, keys: ["key-7"]))
        #expect(enqueue(service, body: "{\"userId\":\"u\",\"enqueueKey\":\"key-7\"}").head.status == .ok)
        let refused = enqueue(service, body: "{\"userId\":\"u\",\"enqueueKey\":\"key-8\"}")
        #expect(refused.head.status == .forbidden)
        #expect(refused.body["error"] as? String == "Enqueue key is not known")
        #expect(enqueue(service, body: "not json").head.status == .badRequest)
    }

    @Test func inviteCodesGateTheQueuePage() throws {
        let service = WaitingRoomService(
            configuration: RoomFixture.configuration(inviteOnly: true, keys: ["key-7"], inviteCodes: ["VIP-1"]))
        // Without key or token the visitor enqueues (Android sends its code on the queue URL only);
        // a forged key is still refused at once.
        let admitted = enqueue(service, body: "{\"userId\":\"u\"}")
        #expect(admitted.head.status == .ok)
        #expect(enqueue(service, body: "{\"userId\":\"u\",\"enqueueKey\":\"key-8\"}").head.status == .forbidden)
        let queueURL = try #require(admitted.body["QueueUrl"] as? String)
        func page(_ url: String) throws -> (HTTPResponse, [String: Any]) {
            let answer = try #require(service.handle(RoomFixture.get(url), body: [], at: RoomFixture.at(0.1)).answer)
            return (answer.head, json(answer.body))
        }
        // No code, a bad code: refused the way a bad key is.
        let (noCode, noCodeBody) = try page(queueURL)
        #expect(noCode.status == .forbidden)
        #expect(noCodeBody["error"] as? String == "This waiting room is invite-only: an invite code is required")
        let (badCode, badCodeBody) = try page(queueURL + "&code=VIP-2")
        #expect(badCode.status == .forbidden && badCodeBody["error"] as? String == "Invite code is not known")
        // A good code (where Android puts it) admits the ticket for good.
        let withUserId = queueURL.replacingOccurrences(of: "?q=", with: "?userId=abc&q=") + "&code=VIP-1"
        #expect(try page(withUserId).0.status != .forbidden)
        #expect(try page(queueURL).0.status != .forbidden)
        // A visitor with a listed key needs no code.
        let keyed = enqueue(service, body: "{\"userId\":\"u\",\"enqueueKey\":\"key-7\"}")
        #expect(try page(try #require(keyed.body["QueueUrl"] as? String)).0.status != .forbidden)
    }

    @Test func eachFaultKindShowsOnTheWire() throws {
        let faults = [
            FaultRule(from: .seconds(0), to: .seconds(10), endpoint: .enqueue, rate: 1, effect: .status(503)),
            FaultRule(from: .seconds(10), to: .seconds(20), endpoint: .enqueue, effect: .reset),
            FaultRule(from: .seconds(20), to: .seconds(30), endpoint: .enqueue, effect: .timeout),
            FaultRule(from: .seconds(30), to: .seconds(40), endpoint: .enqueue, effect: .malformedBody),
            FaultRule(
                from: .seconds(40), to: .seconds(50), endpoint: .any,
                effect: .latency(.milliseconds(200), jitter: .zero)),
            FaultRule(from: .seconds(50), to: .seconds(60), endpoint: .queuePage, effect: .navigate(.close)),
            FaultRule(from: .seconds(60), to: .seconds(70), endpoint: .queuePage, effect: .navigate(.restartSession)),
        ]
        let service = WaitingRoomService(
            configuration: RoomFixture.configuration(
                faults: faults, latency: LatencySettings(enqueue: .milliseconds(20))))
        let unavailable = enqueue(service, at: 5)
        #expect(unavailable.head.status == .serviceUnavailable)
        #expect(unavailable.body["error"] != nil)
        guard case .reset = service.handle(RoomFixture.enqueueRequest(), body: [], at: RoomFixture.at(15)) else {
            Issue.record("expected a reset")
            return
        }
        guard case .noAnswer = service.handle(RoomFixture.enqueueRequest(), body: [], at: RoomFixture.at(25)) else {
            Issue.record("expected no answer")
            return
        }
        let malformed = try #require(
            service.handle(RoomFixture.enqueueRequest(), body: [], at: RoomFixture.at(35)).answer)
        #expect(malformed.head.status == .ok)
        #expect((try? JSONSerialization.jsonObject(with: Data(malformed.body.utf8))) == nil)
        let slow = try #require(service.handle(RoomFixture.enqueueRequest(), body: [], at: RoomFixture.at(45)).answer)
        #expect(slow.delay == .milliseconds(220))
        let queueURL = try #require(json(slow.body)["QueueUrl"] as? String)
        let close = try #require(service.handle(RoomFixture.get(queueURL), body: [], at: RoomFixture.at(55)).answer)
        #expect(close.head.status == .found && close.head.headerFields[.location] == "queueit://close")
        let restart = try #require(service.handle(RoomFixture.get(queueURL), body: [], at: RoomFixture.at(65)).answer)
        #expect(restart.head.headerFields[.location] == "queueit://restartSession")
        // Outside every window the room answers normally, after its modelled latency.
        let normal = enqueue(service, at: 80)
        #expect(normal.head.status == .ok)
    }

    @Test func faultRatesAreSeededPerRequestSequence() {
        let faults = [FaultRule(endpoint: .enqueue, rate: 0.3, effect: .status(500))]
        func statuses(seed: UInt64) -> [Int] {
            let service = WaitingRoomService(configuration: RoomFixture.configuration(faults: faults, seed: seed))
            return (0..<200).map { _ in
                service.handle(RoomFixture.enqueueRequest(), body: [], at: .origin).answer!.head.status.code
            }
        }
        let first = statuses(seed: 9)
        #expect(first == statuses(seed: 9))
        #expect(first != statuses(seed: 10))
        let failures = first.filter { $0 == 500 }.count
        #expect(failures > 35 && failures < 85, "about 30 % of 200: \(failures)")
    }

    @Test func modeFaultFlipsTheRoomOnTheTimeline() {
        let faults = [FaultRule(from: .seconds(60), effect: .mode(.afterevent))]
        let service = WaitingRoomService(configuration: RoomFixture.configuration(faults: faults))
        #expect(enqueue(service, at: 59).body["QueueitToken"] is NSNull)
        #expect((enqueue(service, at: 60).body["QueueitToken"] as? String)?.contains("~rt_afterevent~") == true)
    }
}
