import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `HTTPTransport` over one shared AsyncHTTPClient `HTTPClient`: redirects never followed, a
/// connection pool sized for thousands of concurrent visitors, TLS certificate verification on
/// (AHC's default). With a connect target, note that TLS (SNI and the certificate check) is
/// made against the connect target's host, not the waiting-room host in `Host`.
public final class AsyncHTTPTransport: HTTPTransport {
    /// Where every request goes instead of its own scheme, host and port; nil: where it says.
    public let connectTarget: ConnectTarget?
    private let client: HTTPClient
    /// Bodies larger than this are an error (queue pages and API answers are small).
    private let maxBodyBytes: Int

    /// One `HTTPClient` on NIO's shared event loops, for the transport's life.
    ///
    /// `maxConnectionsPerHost` is the pool's soft limit per host (a load test keeps thousands
    /// of visitors waiting at once); a body over `maxBodyBytes` fails its request with
    /// `TransportError.other`. Connecting gives up after 10 s.
    public convenience init(
        connectTo connectTarget: ConnectTarget? = nil, maxConnectionsPerHost: Int = 4096, maxBodyBytes: Int = 4 << 20
    ) {
        self.init(
            connectTo: connectTarget, maxConnectionsPerHost: maxConnectionsPerHost, maxBodyBytes: maxBodyBytes,
            tls: nil)
    }

    /// `tls`: AsyncHTTPClient's TLS configuration (nil: its default, the system's trust
    /// store); tests trust a private CA with it.
    package init(
        connectTo connectTarget: ConnectTarget? = nil, maxConnectionsPerHost: Int = 4096, maxBodyBytes: Int = 4 << 20,
        tls: TLSConfiguration?
    ) {
        self.connectTarget = connectTarget
        self.maxBodyBytes = maxBodyBytes
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnectionsPerHost)
        // A refused or failed connection is reported at once, as the SDKs' HTTP stacks do; the
        // enqueue machine's own backoff decides what happens next.
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)),
            connectionPool: pool)
        // The requests say `Accept-Encoding: gzip` as the phones' stacks do, which decompress
        // what they asked for: so does this transport (gzip and deflate).
        configuration.decompression = .enabled(limit: .size(maxBodyBytes))
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the pool. Call once, after the last request.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends the request (to the connect target, with `Host` kept as the waiting room's
    /// authority) and collects the whole answer; `timeout` is AsyncHTTPClient's deadline for
    /// the request. AHC and NIO errors become `TransportError`s, in words.
    public func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError>
    {
        let head = request.head
        let authority = head.authority ?? ""
        let origin = connectTarget?.origin ?? "\(head.scheme ?? "https")://\(authority)"
        var ahcRequest = HTTPClientRequest(url: origin + (head.path ?? "/"))
        ahcRequest.method = HTTPMethod(rawValue: head.method.rawValue)
        for field in head.headerFields {
            ahcRequest.headers.add(name: field.name.rawName, value: field.value)
        }
        if connectTarget != nil, !authority.isEmpty {
            ahcRequest.headers.replaceOrAdd(name: "Host", value: authority)
        }
        if let body = request.body {
            ahcRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await client.execute(ahcRequest, timeout: TimeAmount(timeout))
            var body = try await response.body.collect(upTo: maxBodyBytes)
            let bytes = body.readBytes(length: body.readableBytes) ?? []
            var fields = HTTPFields()
            for (name, value) in response.headers {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            let status = HTTPResponse.Status(
                code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
            return .success(IncomingResponse(head: HTTPResponse(status: status, headerFields: fields), body: bytes))
        } catch {
            return .failure(Self.transportError(error))
        }
    }

    /// Maps AHC and NIO errors onto the core's vocabulary, in words (`ErrorWording`): these
    /// reasons end up in `visitors.csv` and on the terminal.
    static func transportError(_ error: any Error) -> TransportError {
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout:
                return .timedOut
            case .remoteConnectionClosed, .uncleanShutdown:
                return .connectionReset
            default:
                return .other(ErrorWording.plain(clientError))
            }
        }
        if let tls = TLSErrorWording.transportError(error) { return tls }
        if error is NIOConnectionError { return .connectFailed("the connection could not be opened") }
        if let ioError = error as? IOError {
            return ioError.errnoCode == ECONNRESET || ioError.errnoCode == EPIPE
                ? .connectionReset : .connectFailed(ErrorWording.plain(ioError))
        }
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout: return .timedOut
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: return .connectionReset
            case .writeHostUnreachable: return .connectFailed(ErrorWording.plain(channelError))
            default: return .other(ErrorWording.plain(channelError))
            }
        }
        return .other(ErrorWording.plain(error))
    }
}
