import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

/// One place a live run's requests go (`LiveRoutes.Destination`: where to connect, and the host
/// the requests name), resolved once before the run.
struct LiveEndpoint: Sendable {
    var address: SocketAddress
    /// A host met mid-run's other addresses, in DNS's order: a connect that fails at `address`
    /// goes on to them (`ConnectAddressFallback`). Empty for the run's own endpoints, whose
    /// URLs say where to connect.
    var fallbackAddresses: [SocketAddress] = []
    /// `host[:port]` the requests name: the `Host` of a request that names none.
    var authority: String
    /// TLS with certificate verification against the system's trust store (and `target.caFile`'s
    /// certificates), for `https`: the run's shared connections and the reachability check, on
    /// swift-nio-ssl. It keeps no client sessions to resume (2.37: no session cache or
    /// `SSL_SESSION` API), so each of those connections is a full handshake.
    var tls: NIOSSLContext?
    /// The same TLS on swift-nio-ssl's BoringSSL directly, for iOS devices' own connections
    /// (`ResumingTLSClientHandler`): a device resumes its sessions across its connections, as
    /// iOS does. Android's per-attempt client has none to offer and stays on `tls`.
    var visitorTLS: ResumingTLSClientContext?
    /// The name TLS sends as SNI and checks the certificate against: the host the requests
    /// name (the URL's, as a phone and `curl --connect-to` do), nil for an address literal.
    var serverHostname: String?

    /// Resolves `target` (blocking; once per run) and prepares TLS for `https`, offering
    /// `applicationProtocols` by ALPN (none when empty: HTTP/1.1 without asking).
    /// - Parameters:
    ///   - serverName: the host the requests name (SNI, the certificate's name, the default
    ///     `Host`); nil: the target's own host.
    ///   - verifiesName: false for the embedded room, whose certificate names 127.0.0.1 and
    ///     stands in for every host it serves (its chain is still verified).
    static func resolve(
        _ target: ConnectTarget, serverName: String? = nil, verifiesName: Bool = true, caFile: String? = nil,
        applicationProtocols: [String] = []
    ) throws -> LiveEndpoint {
        let port = target.port ?? (target.scheme == "https" ? 443 : 80)
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(target.host, port: port)
        } catch {
            // The caller names the endpoint; this says what went wrong, in words.
            throw LiveEndpointError(description: LiveTransportErrors.plain(error))
        }
        return try make(
            target, address: address, serverName: serverName, verifiesName: verifiesName, caFile: caFile,
            applicationProtocols: applicationProtocols)
    }

    /// The endpoint of `target` at `address`, already resolved (a host met mid-run,
    /// `MidRunHosts`), with TLS prepared for `https` as `resolve` prepares it.
    static func make(
        _ target: ConnectTarget, address: SocketAddress, serverName: String? = nil, verifiesName: Bool = true,
        caFile: String? = nil, applicationProtocols: [String] = []
    ) throws -> LiveEndpoint {
        let secure = target.scheme == "https"
        var tls: NIOSSLContext?
        if secure {
            do {
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
                if !verifiesName { configuration.certificateVerification = .noHostnameVerification }
                configuration.applicationProtocols = applicationProtocols
                tls = try NIOSSLContext(configuration: configuration)
            } catch {
                throw LiveEndpointError(description: LiveTransportErrors.plain(error))
            }
        }
        let name = serverName ?? target.host
        let isAddressLiteral = Self.isAddressLiteral(name)
        var endpoint = LiveEndpoint(
            address: address, authority: serverName ?? target.authority, tls: tls,
            serverHostname: secure && !isAddressLiteral ? name : nil)
        if secure {
            let bare = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
            let checked: ResumingTLSClientContext.CheckedName =
                !verifiesName ? .chainOnly : isAddressLiteral ? .address(bare) : .host(name)
            endpoint.visitorTLS = try ResumingTLSClientContext(
                serverName: endpoint.serverHostname, checked: checked, caFile: caFile,
                applicationProtocols: applicationProtocols)
        }
        return endpoint
    }

    /// An IPv4 or IPv6 address (SNI never carries one).
    static func isAddressLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: bare, port: 0)) != nil
    }
}

/// Why an endpoint could not be prepared (its host name does not resolve, TLS cannot be set up).
struct LiveEndpointError: Error, CustomStringConvertible {
    let description: String
}
