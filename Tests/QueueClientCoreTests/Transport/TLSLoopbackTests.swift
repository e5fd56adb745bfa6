import Foundation
import HTTPTypes
import NIOSSL
import StandInServers
import Testing
import VisitorDriver

@testable import QueueClientCore

/// The library transport (`AsyncHTTPTransport`) over real TLS on 127.0.0.1: a queue page whose
/// server drops the connection without `close_notify` is a failed load, which an Android visitor
/// reloads and passes, over https as over http; a certificate the phone does not trust is the
/// SDK's SslError. Waits run on the test clock; the servers are loopback stand-ins.
@Suite("Loopback: TLS faults on the queue page through AsyncHTTPTransport", .serialized, .timeLimit(.minutes(1)))
struct TLSLoopbackTests {
    static let target = "https://shop.example.com/checkout"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("QueueSimTests/Fixtures/tls").path

    /// Sends the enqueue call to one transport and the queue pages to another, as a phone sends
    /// them from two stacks.
    struct SplitTransport: HTTPTransport {
        let enqueue: AsyncHTTPTransport
        let pages: AsyncHTTPTransport

        func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError> {
            request.head.method == .post
                ? await enqueue.execute(request, timeout: timeout) : await pages.execute(request, timeout: timeout)
        }
    }

    static func serverContext(certificate: String, key: String) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(fixtures + "/" + certificate)
        let key = try NIOSSLPrivateKey(file: fixtures + "/" + key, format: .pem)
        return try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
    }

    /// A client trusting only the fixtures' private CA.
    static func trustingPrivateCA() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(fixtures + "/private-ca.cert.pem"))
        return tls
    }

    static let enqueueAnswer = RawHTTPServer.answer(
        body:
            #"{"QueueId":"q-1","QueueUrl":"https://acme.queue-it.net/?c=acme&e=spring","EventTargetUrl":"\#(target)","QueueitToken":null,"QueueUrlTTLInMinutes":0}"#
    )
    static let passAnswer =
        "HTTP/1.1 302 Found\r\nLocation: \(target)?queueittoken=\(TokenVectors.queue)\r\nContent-Length: 0\r\n\r\n"

    /// One Android visitor: the enqueue on plain HTTP, the queue pages on `pageServer` (TLS when
    /// `tls` is set), whose first `drops` requests are dropped.
    static func visit(pageTLS: NIOSSLContext?, drops: Int, platform: ClientPlatform = .android) async throws -> (
        VisitorResult, pageRequests: Int
    ) {
        try await RawHTTPServer.with(reply: { _ in .bytes(enqueueAnswer) }) { enqueueServer in
            try await RawHTTPServer.with(tls: pageTLS, reply: { $0 <= drops ? .drop : .bytes(passAnswer) }) { pages in
                let scheme = pageTLS == nil ? "http" : "https"
                let transport = SplitTransport(
                    enqueue: AsyncHTTPTransport(
                        connectTo: ConnectTarget(scheme: "http", host: "127.0.0.1", port: enqueueServer.port)),
                    pages: AsyncHTTPTransport(
                        connectTo: ConnectTarget(scheme: scheme, host: "127.0.0.1", port: pages.port),
                        tls: try trustingPrivateCA()))
                let result = await runVisitor(
                    configuration: configuration(maxWait: .seconds(600), platform: platform, queuePageRetry: nil),
                    transport: transport, clock: TestClock())
                try await transport.enqueue.shutdown()
                try await transport.pages.shutdown()
                return (result, pages.requestsReceived)
            }
        }
    }

    @Test("a queue page dropped twice without close_notify: Android reloads and passes, over https as over http")
    func uncleanCloseReloads() async throws {
        let trusted = try Self.serverContext(
            certificate: "private-ca-server.cert.pem", key: "private-ca-server.key.pem")
        for tls in [nil, trusted] {
            let (result, pageRequests) = try await Self.visit(pageTLS: tls, drops: 2)
            #expect(result.outcome == .passed, "\(tls == nil ? "http" : "https"): \(result)")
            #expect(result.errorMessage == nil)
            #expect(pageRequests == 3, "two dropped loads and the reload that passed")
            #expect(result.polls == 3)
        }
    }

    @Test("a queue page whose certificate the phone does not trust: SslError on both platforms, no reload")
    func untrustedCertificateIsSslError() async throws {
        let untrusted = try Self.serverContext(certificate: "self-signed.cert.pem", key: "self-signed.key.pem")
        for platform in ClientPlatform.allCases {
            let (result, pageRequests) = try await Self.visit(pageTLS: untrusted, drops: 0, platform: platform)
            #expect(result.outcome == .error, "\(platform)")
            #expect(result.errorMessage == "SslError: the server's certificate could not be verified", "\(platform)")
            #expect(pageRequests == 0, "the handshake failed before any request")
            #expect(result.polls == 1)
        }
    }
}
