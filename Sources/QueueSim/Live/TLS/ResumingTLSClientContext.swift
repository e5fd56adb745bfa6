// swift-nio-ssl's vendored BoringSSL, which is not a product of that package: NIOSSLHandler
// exposes no `SSL_SESSION`, so a client that offers a device's session needs BoringSSL itself.
// An implicit dependency, pinned by Package.resolved: an upgrade of swift-nio-ssl must re-run
// TLSResumptionTests and ResumingTLSClientHandlerTests (docs/client-core.md, "TLS sessions").
import CNIOBoringSSL
import Foundation
import QueueClientCore

/// One endpoint's TLS client settings for `ResumingTLSClientHandler`: the trust (the system's
/// store and `target.caFile`), the name checked, ALPN, and the callback that hands each new
/// session to the connection's device (`TLSSessionStore`). Made once per endpoint and shared by
/// every loop: an `SSL_CTX` is safe to make connections from on any thread once configured, and
/// nothing here changes after `init`.
final class ResumingTLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The name SNI carries (nil for an address literal).
    let serverName: String?
    /// What the certificate is checked against: the host name, an address literal, or
    /// nothing (the embedded room, whose certificate stands in for every host).
    let checked: CheckedName

    enum CheckedName: Equatable, Sendable {
        case host(String)
        case address(String)
        case chainOnly
    }

    /// - Parameters:
    ///   - serverName: SNI, nil for an address literal.
    ///   - checked: the name or address the certificate must carry.
    ///   - applicationProtocols: ALPN, in order (none: HTTP/1.1 without asking).
    ///   - trustRoots: the system's trust store (tests name another place to look).
    init(
        serverName: String?, checked: CheckedName, caFile: String?, applicationProtocols: [String],
        trustRoots: SystemTrustRoots = .platform
    ) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw LiveEndpointError(description: "BoringSSL could not make a TLS client context")
        }
        self.context = context
        self.serverName = serverName
        self.checked = checked
        // Every new session goes to the callback and none stays in the context: the handler
        // keeps one per device and host. TLS 1.2 at least, as the phones' stacks speak.
        _ = SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE)
        _ = SSL_CTX_set_min_proto_version(context, UInt16(TLS1_2_VERSION))
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, resumingTLSVerify)
        SSL_CTX_sess_set_new_cb(context, resumingTLSNewSession)
        try trustRoots.load(into: context)
        if let caFile, SSL_CTX_load_verify_locations(context, caFile, nil) != 1 {
            ERR_clear_error()
            throw LiveEndpointError(description: "the certificates of \(caFile) could not be read")
        }
        if !applicationProtocols.isEmpty {
            // ALPN's wire form: each name prefixed by its length. 0 is success here.
            let wire = applicationProtocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            guard SSL_CTX_set_alpn_protos(context, wire, wire.count) == 0 else {
                throw LiveEndpointError(description: "BoringSSL refused the ALPN list \(applicationProtocols)")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}

/// Where the system keeps its trusted roots, found as swift-nio-ssl finds them on Linux (its
/// `LinuxCABundle.swift` search paths): BoringSSL's own default (`SSL_CTX_set_default_verify_paths`)
/// looks in `/etc/ssl/cert.pem`, which Debian does not have, so it would trust nothing there
/// and every public endpoint would fail as untrusted.
struct SystemTrustRoots: Sendable {
    /// Bundles of PEM certificates; the first that exists is loaded.
    var files: [String]
    /// Directories of hashed certificates (`c_rehash`); the first that exists is searched.
    var directories: [String]

    /// Debian, Ubuntu, Arch, Alpine; Fedora; macOS and the BSDs (`/etc/ssl/cert.pem`).
    static let platform = SystemTrustRoots(
        files: ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"],
        directories: ["/etc/ssl/certs"])

    /// The bundle and directory found here (nil: none).
    var located: (file: String?, directory: String?) {
        (files.first { Self.exists($0, directory: false) }, directories.first { Self.exists($0, directory: true) })
    }

    func load(into context: OpaquePointer) throws {
        let (file, directory) = located
        guard file != nil || directory != nil else {
            throw LiveEndpointError(
                description:
                    "no system trust store was found (looked for \((files + directories).joined(separator: ", ")))")
        }
        guard SSL_CTX_load_verify_locations(context, file, directory) == 1 else {
            ERR_clear_error()
            throw LiveEndpointError(
                description:
                    "the system's trust store (\([file, directory].compactMap { $0 }.joined(separator: ", "))) could not be read"
            )
        }
    }

    private static func exists(_ path: String, directory: Bool) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            && isDirectory.boolValue == directory
    }
}

/// The verification callback: what swift-nio-ssl accepts, this client accepts. A leaf
/// certificate that does not carry the host name but carries the address the connection
/// went to is accepted, as swift-nio-ssl's identity check (RFC 6125 plus the peer's IP
/// address) accepts it, so a run's visitors and its reachability check agree on an
/// endpoint. Every other refusal stands, and is told to the handler, which words it.
private let resumingTLSVerify: @convention(c) (Int32, OpaquePointer?) -> Int32 = { ok, store in
    guard ok == 0, let store,
        let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let handler = ResumingTLSClientHandler.of(OpaquePointer(ssl))
    else { return ok }
    let error = X509_STORE_CTX_get_error(store)
    if error == X509_V_ERR_HOSTNAME_MISMATCH, X509_STORE_CTX_get_error_depth(store) == 0,
        let certificate = X509_STORE_CTX_get_current_cert(store),
        let peer = handler.peerAddress, X509_check_ip_asc(certificate, peer, 0) == 1
    {
        X509_STORE_CTX_set_error(store, X509_V_OK)
        return 1
    }
    handler.certificateRefused(error)
    return 0
}

/// The new-session callback (`SSL_CTX_sess_set_new_cb`): a TLS 1.3 server's NewSessionTicket,
/// or a TLS 1.2 session, handed to the connection's handler, which keeps it for its device or
/// declines it. 1: the reference is taken.
private let resumingTLSNewSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
    guard let ssl, let session, let handler = ResumingTLSClientHandler.of(ssl) else { return 0 }
    return handler.offered(session) ? 1 : 0
}
