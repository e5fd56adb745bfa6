import Foundation
import NIOCore
import NIOEmbedded
import NIOSSL
import NIOTLS
import QueueClientCore
import Testing

@testable import QueueSim

/// iOS visitors' resuming TLS client on BoringSSL (`ResumingTLSClientHandler`) against swift-nio-ssl's
/// server, both on `EmbeddedChannel`s whose bytes the test carries across: no socket, no
/// clock. What the connection above it reads: ALPN's answer, the bytes both ways, one
/// record per flushed write, and each fault in the classes a phone tells apart.
@Suite("Resuming TLS client")
struct ResumingTLSClientHandlerTests {
    static let fixtures = HostRoutingRunTests.fixtures

    /// What reaches the handler above the TLS client.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var negotiated: [String?] = []
        var received = ""
        var errors: [any Error] = []
        var inactive = false

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted(let negotiated) = event { self.negotiated.append(negotiated) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
        func channelInactive(context: ChannelHandlerContext) { inactive = true }
    }

    struct Pair {
        let client = EmbeddedChannel()
        let server = EmbeddedChannel()
        let recorder = Recorder()
        var resumed: [Bool] { resumedBox.values }
        let resumedBox = Box()

        final class Box { var values: [Bool] = [] }
        /// What the server sent, buffer by buffer (its first is its hello).
        let serverSent = Sent()
        final class Sent { var buffers: [ByteBuffer] = [] }

        /// Carries the bytes each side wrote to the other until neither writes (bounded).
        func shuttle() throws {
            for _ in 0..<20 {
                var moved = false
                while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    // The server's own error (the client's alert after a refusal) is not the test's.
                    _ = try? server.writeInbound(bytes)
                }
                while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    serverSent.buffers.append(bytes)
                    if client.isActive { try client.writeInbound(bytes) }
                }
                if !moved { return }
            }
        }
    }

    static func serverContext(certificate: String = "routes-server") throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(fixtures + "/\(certificate).cert.pem").map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: fixtures + "/\(certificate).key.pem", format: .pem)))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }

    static func clientContext(
        name: String = "acme.queue-it.net", trusted: Bool = true, ca: String = "routes-ca"
    ) throws -> ResumingTLSClientContext {
        try ResumingTLSClientContext(
            serverName: name, checked: .host(name), caFile: trusted ? fixtures + "/\(ca).cert.pem" : nil,
            applicationProtocols: ["h2", "http/1.1"])
    }

    /// A client and a server, connected: the handshake runs on `shuttle`.
    static func pair(
        client tls: ResumingTLSClientContext, server: NIOSSLContext,
        resumption: ResumingTLSClientHandler.Resumption? = nil, address: String = "127.0.0.1"
    ) throws -> Pair {
        let pair = Pair()
        let box = pair.resumedBox
        try pair.client.pipeline.syncOperations.addHandler(
            ResumingTLSClientHandler(context: tls, resumption: resumption) { box.values.append($0) })
        try pair.client.pipeline.syncOperations.addHandler(pair.recorder)
        try pair.server.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: server))
        let address = try SocketAddress(ipAddress: address, port: 443)
        try pair.server.connect(to: address).wait()
        try pair.client.connect(to: address).wait()
        return pair
    }

    @Test("the handshake ends with ALPN's choice, then bytes go both ways; a flushed write is one record")
    func handshakeAndBytes() throws {
        let pair = try Self.pair(client: Self.clientContext(), server: Self.serverContext())
        // Written before the handshake completes: held, then sent.
        pair.client.write(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"), promise: nil)
        pair.client.flush()
        try pair.shuttle()
        #expect(pair.recorder.negotiated == ["h2"])
        #expect(pair.recorder.errors.isEmpty)
        var heard = ""
        while let bytes = try pair.server.readInbound(as: ByteBuffer.self) { heard += String(buffer: bytes) }
        #expect(heard == "GET / HTTP/1.1\r\n\r\n")

        pair.client.write(ByteBuffer(string: String(repeating: "a", count: 900)), promise: nil)
        pair.client.flush()
        var sealed = try #require(try pair.client.readOutbound(as: ByteBuffer.self))
        var records = 0
        while sealed.readableBytes >= 5, let type = sealed.readInteger(as: UInt8.self) {
            sealed.moveReaderIndex(forwardBy: 2)
            let length = Int(sealed.readInteger(as: UInt16.self) ?? 0)
            sealed.moveReaderIndex(forwardBy: length)
            if type == 23 { records += 1 }
        }
        #expect(records == 1)

        pair.server.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"), promise: nil)
        try pair.shuttle()
        #expect(pair.recorder.received == "HTTP/1.1 200 OK\r\n\r\n")
    }

    @Test("a connection lost without close_notify is a reset, not an SSL error")
    func uncleanClose() throws {
        let pair = try Self.pair(client: Self.clientContext(), server: Self.serverContext())
        try pair.shuttle()
        pair.client.pipeline.fireChannelInactive()
        let error = try #require(pair.recorder.errors.first)
        #expect(LiveTransportErrors.map(error) == .connectionReset)
        #expect(
            LiveTransportErrors.plain(error) == "the server closed the TLS connection without close_notify")
    }

    @Test("the server's close_notify is a clean close: answered, no error")
    func cleanClose() throws {
        let pair = try Self.pair(client: Self.clientContext(), server: Self.serverContext())
        try pair.shuttle()
        pair.server.close(promise: nil)
        try pair.shuttle()
        #expect(pair.recorder.errors.isEmpty)
        #expect(!pair.client.isActive)
    }

    @Test("a connection lost mid-handshake is a failed connect, in NIOSSL's words")
    func eofDuringHandshake() throws {
        let pair = try Self.pair(client: Self.clientContext(), server: Self.serverContext())
        pair.client.pipeline.fireChannelInactive()
        let error = try #require(pair.recorder.errors.first)
        #expect(LiveTransportErrors.map(error) == .connectFailed("the TLS handshake failed"))
    }

    /// Refused before the server's hello, when BoringSSL has no session to read a verification
    /// result from: the refusal is the handshake's, not the certificate's.
    @Test("a handshake the server refuses (no common version) is a failed connect, not an SSL error")
    func refusedHandshake() throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(Self.fixtures + "/routes-server.cert.pem").map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: Self.fixtures + "/routes-server.key.pem", format: .pem)))
        configuration.minimumTLSVersion = .tlsv1
        configuration.maximumTLSVersion = .tlsv11
        let pair = try Self.pair(client: Self.clientContext(), server: NIOSSLContext(configuration: configuration))
        try pair.shuttle()
        let error = try #require(pair.recorder.errors.first)
        #expect(error as? TLSClientFailure == .handshakeFailed)
        #expect(LiveTransportErrors.map(error) == .connectFailed("the TLS handshake failed"))
        #expect(!pair.client.isActive)
    }

    @Test("a certificate not naming the host, or not trusted, is the SDK's SSL error")
    func certificateFailures() throws {
        for (context, words) in [
            (try Self.clientContext(name: "beta.queue-it.net"), "the server's certificate does not name this host"),
            (try Self.clientContext(trusted: false), "the server's certificate could not be verified"),
        ] {
            let pair = try Self.pair(client: context, server: Self.serverContext())
            try pair.shuttle()
            let error = try #require(pair.recorder.errors.first)
            #expect(LiveTransportErrors.map(error) == .tls(words))
            #expect(pair.recorder.negotiated.isEmpty)
            #expect(!pair.client.isActive)
        }
    }

    /// swift-nio-ssl accepts a certificate naming the address it connected to, whatever the
    /// host name (its RFC 6125 check takes the peer's IP SANs too); the reachability check
    /// is swift-nio-ssl's, so the visitors' client must agree with it.
    @Test("a certificate naming the address connected to, not the host, is accepted as swift-nio-ssl accepts it")
    func certificateNamingTheAddress() throws {
        let client = try Self.clientContext(ca: "private-ca")
        let server = try Self.serverContext(certificate: "private-ca-server")
        let accepted = try Self.pair(client: client, server: server)
        try accepted.shuttle()
        #expect(accepted.recorder.errors.isEmpty)
        #expect(accepted.recorder.negotiated == ["h2"])
        let elsewhere = try Self.pair(client: client, server: server, address: "10.9.8.7")
        try elsewhere.shuttle()
        let error = try #require(elsewhere.recorder.errors.first)
        #expect(LiveTransportErrors.map(error) == .tls("the server's certificate does not name this host"))
    }

    @Test("a device's second connection resumes its session; another device's does not")
    func resumption() throws {
        let (client, server) = (try Self.clientContext(), try Self.serverContext())
        let store = TLSSessionStore()
        func connect(device: Int) throws -> Bool? {
            let pair = try Self.pair(
                client: client, server: server,
                resumption: .init(store: store, device: device, cache: 0, endpoint: 0))
            try pair.shuttle()
            // The answer brings TLS 1.3's tickets along.
            pair.server.writeAndFlush(ByteBuffer(string: "ok"), promise: nil)
            try pair.shuttle()
            return pair.resumed.first
        }
        #expect(try connect(device: 1) == false)
        #expect(try connect(device: 1) == true)
        #expect(try connect(device: 2) == false)
        #expect(store.count == 2)
        store.forget(device: 1)
        #expect(store.count == 1)
    }

    /// The server's side of it: in TLS 1.3 the ServerHello is in the clear, and it carries
    /// `pre_shared_key` (extension 41) only when the server accepts the session the client
    /// offered, so this reads what swift-nio-ssl's server decided, not what the client says.
    @Test("the server accepts a device's session on its second connection: its ServerHello answers the pre-shared key")
    func serverAcceptsTheSession() throws {
        let (client, server) = (try Self.clientContext(), try Self.serverContext())
        let store = TLSSessionStore()
        func serverHello(device: Int) throws -> [UInt16] {
            let pair = try Self.pair(
                client: client, server: server, resumption: .init(store: store, device: device, cache: 0, endpoint: 0))
            try pair.shuttle()
            pair.server.writeAndFlush(ByteBuffer(string: "ok"), promise: nil)
            try pair.shuttle()
            #expect(pair.recorder.errors.isEmpty)
            return try Self.serverHelloExtensions(try #require(pair.serverSent.buffers.first))
        }
        let first = try serverHello(device: 1)
        #expect(first.contains(43), "TLS 1.3 (supported_versions): \(first)")
        #expect(!first.contains(41), "a first connection has nothing to resume: \(first)")
        let second = try serverHello(device: 1)
        #expect(second.contains(41), "the server resumed device 1's session: \(second)")
        let other = try serverHello(device: 2)
        #expect(!other.contains(41), "device 2 offered nothing: \(other)")
    }

    /// The extension types of the ServerHello that opens `flight` (RFC 8446 §4.1.3).
    static func serverHelloExtensions(_ flight: ByteBuffer) throws -> [UInt16] {
        struct Truncated: Error {}
        var bytes = flight
        func byte() throws -> UInt8 {
            guard let value = bytes.readInteger(as: UInt8.self) else { throw Truncated() }
            return value
        }
        func skip(_ count: Int) throws {
            guard bytes.readSlice(length: count) != nil else { throw Truncated() }
        }
        let record = try byte()
        #expect(record == 22, "a handshake record")
        try skip(4)  // record version and length
        let message = try byte()
        #expect(message == 2, "a ServerHello")
        try skip(3 + 2 + 32)  // its length, legacy_version, random
        try skip(Int(try byte()))  // legacy_session_id_echo
        try skip(2 + 1)  // cipher_suite, legacy_compression_method
        guard let length = bytes.readInteger(as: UInt16.self), var extensions = bytes.readSlice(length: Int(length))
        else { throw Truncated() }
        var types: [UInt16] = []
        while let type = extensions.readInteger(as: UInt16.self), let size = extensions.readInteger(as: UInt16.self) {
            guard extensions.readSlice(length: Int(size)) != nil else { throw Truncated() }
            types.append(type)
        }
        return types
    }
}
