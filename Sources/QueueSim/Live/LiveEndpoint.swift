import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

/// One place a live run's requests go (the embedded room on loopback, `target.endpoint`'s base
/// URL: curl's connect-to, or a protected API's host), resolved once before the run.
struct LiveEndpoint: Sendable {
    var address: SocketAddress
    /// `host[:port]` of the connect target: the `Host` of a request that names none.
    var authority: String
    /// TLS with certificate verification against the system's trust store (and `target.caFile`'s
    /// certificates), for `https`. Nothing caches sessions: every connection is a full
    /// handshake, as a new device's is.
    var tls: NIOSSLContext?
    /// The name TLS checks the certificate against (and sends as SNI): the connect target's
    /// host, as AsyncHTTPClient did before.
    var serverHostname: String?

    /// Resolves `target` (blocking; once per run) and prepares TLS for `https`, offering
    /// `applicationProtocols` by ALPN (none when empty: HTTP/1.1 without asking).
    static func resolve(
        _ target: ConnectTarget, caFile: String? = nil, applicationProtocols: [String] = []
    ) throws -> LiveEndpoint {
        let secure = target.scheme == "https"
        let port = target.port ?? (secure ? 443 : 80)
        let address: SocketAddress
        var tls: NIOSSLContext?
        do {
            address = try SocketAddress.makeAddressResolvingHost(target.host, port: port)
            if secure {
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
                configuration.applicationProtocols = applicationProtocols
                tls = try NIOSSLContext(configuration: configuration)
            }
        } catch {
            // The caller names the endpoint; this says what went wrong, in words.
            throw LiveEndpointError(description: LiveTransportErrors.plain(error))
        }
        let isAddressLiteral = (try? SocketAddress(ipAddress: target.host, port: port)) != nil
        return LiveEndpoint(
            address: address, authority: target.authority, tls: tls,
            serverHostname: secure && !isAddressLiteral ? target.host : nil)
    }
}

/// Why an endpoint could not be prepared (its host name does not resolve, TLS cannot be set up).
struct LiveEndpointError: Error, CustomStringConvertible {
    let description: String
}
