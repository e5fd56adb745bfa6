import Foundation
import NIOCore
import NIOSSL
import Testing

@testable import QueueClientCore

/// TLS faults on a queue page as a phone reads them (issue 55, item 3): Android's WebView ends
/// the visit with `SslError` only from `onReceivedSslError`, a refused certificate; a connection
/// closed without `close_notify`, a reset or a handshake that fails otherwise is
/// `onReceivedError`, a failed load, which Android reloads and iOS lives through on the page
/// it shows. The errors go through the library transport's classification, as a run's would.
@Suite("TLS faults on the queue page: only a refused certificate is SslError")
struct TLSFaultTests {
    static let target = "https://shop.example.com/checkout"

    /// The faults that are a failed load, not an SSL error.
    static let loadFaults: [(label: String, error: any Error & Sendable)] = [
        ("close without close_notify", NIOSSLError.uncleanShutdown),
        ("reset", IOError(errnoCode: ECONNRESET, reason: "read")),
        ("handshake failure", NIOSSLError.handshakeFailed(.sslError([]))),
    ]
    /// The faults that are the SDK's SSL error: the certificate was refused.
    static let certificateFaults: [(label: String, error: any Error & Sendable)] = [
        ("untrusted or expired", NIOSSLError.unableToValidateCertificate),
        ("wrong name", NIOSSLExtraError.failedToValidateHostname),
    ]

    static func classified(_ error: any Error) -> TransportError { AsyncHTTPTransport.transportError(error) }

    @Test("the classification: a certificate is `.tls`, an unclean close or reset `.connectionReset`")
    func classification() {
        #expect(Self.classified(NIOSSLError.uncleanShutdown) == .connectionReset)
        #expect(Self.classified(IOError(errnoCode: ECONNRESET, reason: "read")) == .connectionReset)
        #expect(
            Self.classified(NIOSSLError.handshakeFailed(.sslError([]))) == .connectFailed("the TLS handshake failed"))
        #expect(
            Self.classified(NIOSSLError.unableToValidateCertificate)
                == .tls("the server's certificate could not be verified"))
        #expect(
            Self.classified(NIOSSLExtraError.failedToValidateHostname)
                == .tls("the server's certificate does not name this host"))
    }

    /// Enqueue → queue; the first `faults` page loads fail with `fault`, then the page passes.
    static func faultyFirstLoads(_ faults: Int, _ fault: TransportError) -> (SentRequest) -> Result<
        IncomingResponse, TransportError
    > {
        var pages = 0
        return { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pages += 1
            if pages <= faults { return .failure(fault) }
            return .success(Reply.redirect("\(target)?queueittoken=\(TokenVectors.queue)"))
        }
    }

    @Test("Android: a page load that fails by a TLS fault other than the certificate is reloaded, and passes")
    func androidReloadsOnLoadFaults() {
        for (label, error) in Self.loadFaults {
            let (result, sent) = simulate(
                configuration(maxWait: .seconds(600), platform: .android, queuePageRetry: nil),
                respond: Self.faultyFirstLoads(2, Self.classified(error)))
            #expect(result.outcome == .passed, "\(label): \(result)")
            #expect(sent.count == 1 + 2 + 1, "\(label): the two failed loads reloaded on the schedule")
            // The reload schedule: at once, then 2 s later (each load takes 20 ms).
            #expect(sent.map(\.at).suffix(3) == [.seconds(0.02), .seconds(0.04), .seconds(2.06)], "\(label)")
        }
    }

    @Test("Android and iOS: a refused certificate ends the visit with SslError at its first load")
    func certificateEndsWithSslError() {
        for platform in ClientPlatform.allCases {
            for (label, error) in Self.certificateFaults {
                let (result, sent) = simulate(
                    configuration(maxWait: .seconds(600), platform: platform, queuePageRetry: nil),
                    respond: Self.faultyFirstLoads(1, Self.classified(error)))
                #expect(result.outcome == .error, "\(platform) \(label)")
                #expect(result.errorMessage?.hasPrefix("SslError: the server's certificate") == true, "\(label)")
                #expect(sent.count == 2, "\(platform) \(label): no reload after an SSL error")
            }
        }
    }

    /// iOS: the page shows (a wait), a poll is sent to another queue page (a navigation), whose
    /// load fails with `fault`; the next poll passes.
    static func iosNavigationFault(_ fault: TransportError) -> (SentRequest) -> Result<IncomingResponse, TransportError>
    {
        var pages = 0
        return { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pages += 1
            switch pages {
            case 1: return .success(Reply.json(#"{"position":1}"#, headers: [("Retry-After", "1")]))
            case 2: return .success(Reply.redirect("/softblock/?c=acme"))
            case 3: return .failure(fault)
            default: return .success(Reply.redirect("\(target)?queueittoken=\(TokenVectors.queue)"))
            }
        }
    }

    @Test("iOS: a navigation that fails by a TLS fault other than the certificate returns to its page and polls on")
    func iosReturnsToPolling() {
        for (label, error) in Self.loadFaults {
            let (result, sent) = simulate(
                configuration(maxWait: .seconds(600), platform: .ios, queuePageRetry: nil),
                respond: Self.iosNavigationFault(Self.classified(error)))
            #expect(result.outcome == .passed, "\(label): \(result)")
            #expect(sent.count == 5, "\(label)")
            // The poll after the failure is of the page it showed, a poll interval later.
            #expect(sent[4].path == "/?c=acme&e=spring", "\(label)")
        }
        for (label, error) in Self.certificateFaults {
            let (result, _) = simulate(
                configuration(maxWait: .seconds(600), platform: .ios, queuePageRetry: nil),
                respond: Self.iosNavigationFault(Self.classified(error)))
            #expect(result.outcome == .error, "\(label)")
            #expect(result.errorMessage?.hasPrefix("SslError:") == true, "\(label)")
        }
    }
}
