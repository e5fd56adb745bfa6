import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors from NIO, AsyncHTTPClient and the C library in words a person reads.
///
/// `String(describing:)` of these types is a debugging dump (`NIOConnectionError(host: …,
/// dnsAError: nil, …)`, `HTTPClientError.remoteConnectionClosed`, `connection reset (error
/// set): Connection refused) (errno: 111)`), and such text used to reach terminal messages and
/// CSV `error` cells. Callers put the words after what failed and where ("could not connect to
/// …: Connection refused (errno 111)").
package enum ErrorWording {
    /// The error in plain words: known types by case and errno, anything else by its own
    /// description unless that is a type dump.
    package static func plain(_ error: any Error) -> String {
        switch error {
        case let io as IOError:
            return errnoWords(io.errnoCode)
        case let channel as ChannelError:
            return channelWords(channel)
        case let unknown as SocketAddressError.UnknownHost:
            return "the host name \(unknown.host) could not be resolved (\(unknown.errorDescription))"
        case let address as SocketAddressError:
            return addressWords(address)
        case let client as HTTPClientError:
            return clientWords(client)
        case let posix as POSIXError:
            return errnoWords(posix.code.rawValue)
        case let cocoa as CocoaError:
            // Foundation's own sentences ("The file “x” couldn’t be opened …").
            return fallback(cocoa, text: cocoa.localizedDescription)
        default:
            return fallback(error)
        }
    }

    /// `strerror` and the number: "Connection refused (errno 111)"; a read-only file system in
    /// the words users search for, "read-only file system (EROFS)", as the report folder's
    /// checks say it. Every errno that reaches a person goes through here.
    package static func errnoWords(_ code: Int32) -> String {
        if code == EROFS { return "read-only file system (EROFS)" }
        return "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// An error's own description when it reads as a sentence, else a generic phrase naming
    /// only the type (never its fields, which may hold paths or tokens).
    package static func fallback(_ error: any Error) -> String {
        fallback(error, text: String(describing: error))
    }

    private static func fallback(_ error: any Error, text: String) -> String {
        if looksLikeADump(text) {
            return "an unexpected error (\(String(describing: type(of: error))))"
        }
        return text
    }

    /// `SomeError(field: …)`, `SomeError.case`, `Error Domain=… Code=…`, or an absolute path
    /// from the build machine (`/home/…/Sources/…swift`).
    static func looksLikeADump(_ text: String) -> Bool {
        text.isEmpty || text.contains("Error(") || text.contains("Error.") || text.contains("Domain=")
            || text.contains("Code=") || text.contains(".swift:") || text.contains("/Sources/")
            || text.contains("/.build/")
    }

    private static func channelWords(_ error: ChannelError) -> String {
        switch error {
        case .connectTimeout: "the connection timed out"
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: "the connection was closed"
        case .writeHostUnreachable: "the host is unreachable"
        case .writeMessageTooLarge: "the message is too large to send"
        default: "the connection failed"
        }
    }

    private static func addressWords(_ error: SocketAddressError) -> String {
        switch error {
        case .failedToParseIPString(let text): "\(text) is not an IP address"
        case .unixDomainSocketPathTooLong: "the socket path is too long"
        case .unsupported: "this kind of address is not supported"
        default: "the address is not usable"
        }
    }

    private static func clientWords(_ error: HTTPClientError) -> String {
        switch error {
        case .connectTimeout, .tlsHandshakeTimeout, .readTimeout, .writeTimeout, .deadlineExceeded:
            return "the request timed out"
        case .remoteConnectionClosed, .uncleanShutdown:
            return "the server closed the connection"
        case .invalidURL, .emptyHost, .emptyScheme:
            return "the URL is not usable"
        case .redirectLimitReached, .redirectCycleDetected:
            return "too many redirects"
        case .bodyLengthMismatch:
            return "the server's answer is malformed"
        case .cancelled:
            return "the request was cancelled"
        default:
            return "the HTTP request failed"
        }
    }
}
