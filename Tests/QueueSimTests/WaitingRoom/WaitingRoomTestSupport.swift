import HTTPTypes
import QueueClientCore

@testable import QueueSim

/// Shared builders for the waiting-room tests.
enum RoomFixture {
    static let secret = "4e1db821-a825-49da-acd0-5d376f2068db"

    static func configuration(
        mode: RoomMode = .queue, eventStart: Duration = .zero, outflowPerMinute: Double = 600,
        inviteOnly: Bool = false, keys: Set<String> = [], faults: [FaultRule] = [],
        latency: LatencySettings = LatencySettings(), domain: String? = nil, prefix: String? = nil,
        seed: UInt64 = 42, inviteCodes: [String] = []
    ) -> WaitingRoomConfiguration {
        WaitingRoomConfiguration(
            customerId: "acme", waitingRoomId: "spring-launch", waitingRoomDomain: domain,
            queuePathPrefix: prefix,
            settings: WaitingRoomSettings(
                mode: mode, eventStart: eventStart, outflowPerSecond: outflowPerMinute / 60, secretKey: secret,
                tokenValidity: .seconds(180), inviteOnly: inviteOnly, inviteCodes: inviteCodes, latency: latency,
                faults: faults),
            seed: seed, knownEnqueueKeys: keys)
    }

    /// An instant on a millisecond grid (exact, so comparisons with the room's integer
    /// nanosecond schedule never trip over binary fractions).
    static func at(_ seconds: Double) -> RunInstant {
        RunInstant(sinceOrigin: .milliseconds(Int64((seconds * 1000).rounded())))
    }

    static func enqueueRequest(host: String = "acme.queue-it.net", path: String? = nil) -> HTTPRequest {
        HTTPRequest(
            method: .post, scheme: "https", authority: host,
            path: path ?? "/api/mobileapp/queue/acme/spring-launch/enqueue")
    }

    static func get(_ url: String) -> HTTPRequest {
        // https://host/path?query → authority + path
        let withoutScheme = url.dropFirst("https://".count)
        let slash = withoutScheme.firstIndex(of: "/") ?? withoutScheme.endIndex
        return HTTPRequest(
            method: .get, scheme: "https", authority: String(withoutScheme[..<slash]),
            path: slash == withoutScheme.endIndex ? "/" : String(withoutScheme[slash...]))
    }

    static func body(_ json: String) -> [UInt8] { Array(json.utf8) }
}

extension RoomReply {
    /// The answer of a `.response` reply; nil for resets and timeouts.
    var answer: (head: HTTPResponse, body: String, delay: Duration)? {
        guard case .response(let head, let body, let delay) = self else { return nil }
        return (head, String(decoding: body, as: UTF8.self), delay)
    }
}
