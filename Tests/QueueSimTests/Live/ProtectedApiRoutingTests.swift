import Foundation
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// Every request goes where its URL points: with the embedded room in front, a `protectedApi`
/// on another loopback server is called there, behind a connector of its own that checks the
/// room's tokens as KnownUser does, and the room's built-in API is never asked.
@Suite("the protected API on a server of its own", .serialized, .timeLimit(.minutes(1)))
struct ProtectedApiRoutingTests {
    static let secretKey = "connector-shared-secret"
    static let cookieName = "QueueITAccepted-SDFrts345E-V3_checkout"

    /// A KnownUser V3 connector's decisions, as its README's glue code makes them: a session
    /// cookie passes; a `queueittoken` is checked (hash, event id, expiry) and swapped for the
    /// cookie by a redirect to the URL without it; anything else is sent to the queue (AJAX
    /// calls get the redirect in `x-queueit-redirect`).
    static func connector(_ request: StandInRequest) -> StandInAnswer {
        guard request.path == "/api/protected" else { return StandInAnswer(status: 404) }
        let selfURL = "http://\(request.host ?? "")/api/protected"
        if request.header("Cookie")?.contains(cookieName + "=") == true {
            return StandInAnswer(status: 200, headers: [("Content-Type", "application/json")], body: "{\"ok\":true}")
        }
        let query = request.uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        let token = query.split(separator: "&").first { $0.hasPrefix("queueittoken=") }?.dropFirst(13)
        if let token {
            let validator = KnownUserTokenValidator(secretKey: secretKey, eventId: "checkout")
            guard case .success = validator.validate(String(token), nowUnixSeconds: Int64(Date().timeIntervalSince1970))
            else { return StandInAnswer(status: 403, body: "{\"error\":\"invalid token\"}") }
            return StandInAnswer(
                status: 302, headers: [("Location", selfURL), ("Set-Cookie", "\(cookieName)=accepted; Path=/")])
        }
        let queue =
            "https://acme.queue-it.net/?c=acme&e=checkout&cver=-1&man=unspecified&t="
            + ConnectorEncoding.encodeComponent(selfURL, keepingTilde: true)
        if request.header("x-queueit-ajaxpageurl") != nil {
            return StandInAnswer(
                status: 200,
                headers: [("x-queueit-redirect", ConnectorEncoding.encodeComponent(queue, keepingTilde: true))])
        }
        return StandInAnswer(status: 302, headers: [("Location", queue)])
    }

    @Test("hybrid visitors behind the embedded room call the API at its own server: 3 calls each, all passed")
    func apiCallsReachTheirServer() async throws {
        let (requests, reports) = try await ScriptedQueueItServer.with(script: Self.connector) { api in
            let yaml = """
                version: 1
                name: hybrid-routing
                seed: 9
                target: { customerId: acme, waitingRoomId: checkout, protectedApi: "http://127.0.0.1:\(api.port)/api/protected" }
                client: { pollInterval: 200ms, maxWait: 30s }
                arrivals: { phases: [ { burst: 12 } ] }
                visitors:
                  - { name: ios, flow: protectedApi }
                  - { name: android, flow: protectedApi, platform: android }
                waitingRoom: { outflow: 600/min, secretKey: \(Self.secretKey) }
                """
            let reports = try await RunFixture.wall(yaml)
            return (api.received.filter { $0.path != "/" }, reports)
        }
        #expect(reports.outcomes == ["passed": 12])
        #expect(requests.count == 12 * 3, "the first call, the call with the token, the call with the cookie")
        #expect(requests.allSatisfy { $0.path == "/api/protected" })
        // The token reached the connector once per visitor, and the connector accepted it.
        #expect(requests.filter { $0.uri.contains("queueittoken=") }.count == 12)
    }
}
