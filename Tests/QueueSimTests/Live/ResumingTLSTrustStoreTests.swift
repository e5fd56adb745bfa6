import CNIOBoringSSL
import Foundation
import Testing

@testable import QueueSim

/// The resuming TLS client's trust store: found where swift-nio-ssl finds the system's on
/// Linux, because BoringSSL's own default (`/etc/ssl/cert.pem`) is not there on Debian and
/// would trust no public endpoint.
@Suite("Resuming TLS client's trust store")
struct ResumingTLSTrustStoreTests {
    /// The first certificate of `bundle`, parsed.
    static func firstCertificate(of bundle: String) throws -> OpaquePointer {
        let pem = try String(contentsOfFile: bundle, encoding: .utf8)
        let begin = try #require(pem.range(of: "-----BEGIN CERTIFICATE-----"))
        let end = try #require(pem.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<pem.endIndex))
        let one = Array(pem[begin.lowerBound..<end.upperBound].utf8)
        // A memory BIO reads the bytes in place: it is used and freed while they live.
        let certificate = one.withUnsafeBytes { bytes -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, bytes.count) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        return try #require(certificate)
    }

    /// Whether `context`'s store verifies `certificate` on its own (a root: trusted or not).
    static func trusts(_ context: ResumingTLSClientContext, _ certificate: OpaquePointer) throws -> Bool {
        let verification = try #require(X509_STORE_CTX_new())
        defer { X509_STORE_CTX_free(verification) }
        #expect(X509_STORE_CTX_init(verification, SSL_CTX_get_cert_store(context.context), certificate, nil) == 1)
        return X509_verify_cert(verification) == 1
    }

    @Test(
        "the system's bundle is found, as swift-nio-ssl finds it, and its roots are trusted; a caFile alone does not trust them"
    )
    func systemRootsTrusted() throws {
        let bundle = try #require(
            SystemTrustRoots.platform.located.file, "no system CA bundle here: install ca-certificates")
        let root = try Self.firstCertificate(of: bundle)
        defer { X509_free(root) }
        let system = try ResumingTLSClientContext(
            serverName: "acme.queue-it.net", checked: .host("acme.queue-it.net"), caFile: nil, applicationProtocols: [])
        #expect(try Self.trusts(system, root))
        // The same root, with only a test CA and no system store: refused, so the first
        // expectation read the system's store and not something trusted anyway.
        let fixtures = HostRoutingRunTests.fixtures
        let testOnly = try ResumingTLSClientContext(
            serverName: "acme.queue-it.net", checked: .host("acme.queue-it.net"),
            caFile: fixtures + "/routes-ca.cert.pem", applicationProtocols: [],
            trustRoots: SystemTrustRoots(files: [fixtures + "/private-ca.cert.pem"], directories: []))
        #expect(try !Self.trusts(testOnly, root))
    }

    @Test("no system trust store is an endpoint error that says where it looked")
    func missingStoreInWords() throws {
        let nowhere = SystemTrustRoots(files: ["/nonexistent/ca.crt"], directories: ["/nonexistent/certs"])
        #expect(nowhere.located.file == nil && nowhere.located.directory == nil)
        do {
            _ = try ResumingTLSClientContext(
                serverName: "acme.queue-it.net", checked: .host("acme.queue-it.net"), caFile: nil,
                applicationProtocols: [], trustRoots: nowhere)
            Issue.record("a context was made without any trust store")
        } catch let error as LiveEndpointError {
            #expect(
                error.description
                    == "no system trust store was found (looked for /nonexistent/ca.crt, /nonexistent/certs)")
        }
    }
}
