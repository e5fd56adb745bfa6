import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// `LiveProbe.connect`: reachability without a request (a TCP connect and, on https, a
/// handshake whose certificate verifies), and the ALPN list `LiveEndpoint.resolve` offers.
@Suite("live probe: a connection, no request", .serialized, .timeLimit(.minutes(1)))
struct LiveProbeConnectTests {
    static func endpoint(port: Int, alpn: [String], caFile: String = H2StandInServer.fixtureCertificatePath)
        throws -> LiveEndpoint
    {
        try LiveEndpoint.resolve(
            ConnectTarget(scheme: "https", host: "127.0.0.1", port: port), serverName: "localhost", caFile: caFile,
            applicationProtocols: alpn)
    }

    /// The server's record of its first connection, once its handshake is logged (at most 2 s).
    static func firstConnection(of server: H2StandInServer) async throws -> H2StandInConnection? {
        for _ in 0..<100 {
            if let connection = server.connections.first, connection.alpn != nil { return connection }
            try await Task.sleep(for: .milliseconds(20))
        }
        return server.connections.first
    }

    @Test("a verified handshake and no request; the ALPN list offered is the one given")
    func connectsWithoutARequest() async throws {
        try await H2StandInServer.with { server in
            let result = await LiveProbe.connect(
                to: try Self.endpoint(port: server.port, alpn: ["h2", "http/1.1"]), timeout: .seconds(5))
            #expect(throws: Never.self) { try result.get() }
            #expect(try await Self.firstConnection(of: server)?.alpn == "h2")
            #expect(server.requests.isEmpty)
        }
        var options = H2StandInServer.Options()
        options.applicationProtocols = ["http/1.1"]
        try await H2StandInServer.with(options) { server in
            let result = await LiveProbe.connect(
                to: try Self.endpoint(port: server.port, alpn: ["h2", "http/1.1"]), timeout: .seconds(5))
            #expect(throws: Never.self) { try result.get() }
            #expect(try await Self.firstConnection(of: server)?.alpn == "http/1.1")
        }
    }

    @Test("an untrusted certificate is a TLS failure; a closed port a failed connect")
    func failures() async throws {
        let untrusted: Result<Void, TransportError> = try await H2StandInServer.with { server in
            let fixtures = String(H2StandInServer.fixtureCertificatePath.dropLast("self-signed.cert.pem".count))
            return await LiveProbe.connect(
                to: try Self.endpoint(port: server.port, alpn: [], caFile: fixtures + "private-ca.cert.pem"),
                timeout: .seconds(5))
        }
        guard case .failure(.tls) = untrusted else {
            Issue.record("expected a TLS failure, got \(untrusted)")
            return
        }
        let port = try await H2StandInServer.with { $0.port }
        let refused = await LiveProbe.connect(to: try Self.endpoint(port: port, alpn: []), timeout: .seconds(5))
        guard case .failure(.connectFailed) = refused else {
            Issue.record("expected a failed connect, got \(refused)")
            return
        }
    }
}
