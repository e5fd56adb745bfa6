import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Testing

@testable import QueueClientCore
@testable import QueueSim

/// Network failures reach `visitors.csv` (`error`) and the run's exit message as sentences,
/// never as a type dump (`NIOConnectionError(…)`, `HTTPClientError.x`, `Error Domain=…`) or a
/// path from the build machine (issue 12, item 7).
@Suite("messages: network errors in words")
struct ErrorWordingTests {
    /// What a person should never see in a message.
    static func expectPlain(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for raw in ["Error(", "Error.", "Domain=", "Code=", "(errno: ", ".swift", "/Sources/", "descriptor:"] {
            #expect(!text.contains(raw), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("the live engine's transport errors, as the CSV error cell shows them")
    func liveTransportErrors() {
        let cases: [(any Error, String)] = [
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), "could not connect: Connection refused (errno 111)"),
            (
                IOError(errnoCode: ENETUNREACH, reason: "connect"),
                "could not connect: Network is unreachable (errno 101)"
            ),
            (ChannelError.writeHostUnreachable, "could not connect: the host is unreachable"),
            (ChannelError.unknownLocalAddress, "the connection failed"),
            (NIOSSLError.unableToValidateCertificate, "TLS error: the server's certificate could not be verified"),
            // Only a refused certificate is a TLS error (the SDK's SslError on a page load); a
            // handshake that fails otherwise made no usable connection, a failed load.
            (NIOSSLError.handshakeFailed(.sslError([])), "could not connect: the TLS handshake failed"),
            (NIOSSLExtraError.failedToValidateHostname, "TLS error: the server's certificate does not name this host"),
        ]
        for (error, expected) in cases {
            let words = LiveTransportErrors.map(error).description
            #expect(words == expected)
            Self.expectPlain(words)
        }
        #expect(LiveTransportErrors.map(IOError(errnoCode: ECONNRESET, reason: "read")) == .connectionReset)
        // A TLS connection closed without close_notify is a dropped connection, not an SSL error.
        #expect(LiveTransportErrors.map(NIOSSLError.uncleanShutdown) == .connectionReset)
        #expect(AsyncHTTPTransport.transportError(NIOSSLError.uncleanShutdown) == .connectionReset)
        #expect(LiveTransportErrors.map(ChannelError.connectTimeout(.seconds(1))) == .timedOut)
    }

    @Test("the SDK transport (AsyncHTTPClient) words its errors the same way")
    func asyncHTTPClientErrors() {
        let cases: [(any Error, String)] = [
            (HTTPClientError.invalidURL, "the URL is not usable"),
            (HTTPClientError.redirectLimitReached, "too many redirects"),
            (HTTPClientError.cancelled, "the request was cancelled"),
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), "could not connect: Connection refused (errno 111)"),
        ]
        for (error, expected) in cases {
            let words = AsyncHTTPTransport.transportError(error).description
            #expect(words == expected)
            Self.expectPlain(words)
        }
    }

    struct DumpingError: Error, CustomStringConvertible {
        var description: String { "DumpingError(path: \"/home/build/Sources/QueueSim/X.swift\", line: 12)" }
    }

    struct SentenceError: Error, CustomStringConvertible {
        var description: String { "the feeder ran out of keys" }
    }

    @Test("anything else keeps its own sentence, or is named without its fields")
    func fallback() {
        #expect(ErrorWording.plain(SentenceError()) == "the feeder ran out of keys")
        #expect(ErrorWording.plain(DumpingError()) == "an unexpected error (DumpingError)")
        let nsError = NSError(domain: "NSPOSIXErrorDomain", code: 2)
        Self.expectPlain(ErrorWording.plain(nsError))
        #expect(ErrorWording.plain(POSIXError(.EACCES)) == "Permission denied (errno 13)")
        #expect(
            LiveTransportErrors.listenWords(IOError(errnoCode: EADDRINUSE, reason: "bind"), from: .hostAndPort)
                .hasSuffix("(errno 98); choose another --port or stop the program using it"))
        // run has no --port: its listener's advice names the option the address came from.
        let metrics = IOError(errnoCode: EADDRINUSE, reason: "bind")
        #expect(
            LiveTransportErrors.listenWords(metrics, from: .metricsListen).hasSuffix(
                "(errno 98); choose another port in --metrics-listen or stop the program using it"))
        #expect(
            LiveTransportErrors.listenWords(IOError(errnoCode: EACCES, reason: "bind"), from: .metricsListen)
                .hasSuffix("choose a higher port in --metrics-listen"))
    }
}
