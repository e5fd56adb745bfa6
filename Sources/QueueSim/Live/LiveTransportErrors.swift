import NIOCore
import NIOPosix
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#endif

/// NIO's errors in the client core's vocabulary (`TransportError`), by type and errno, never by
/// a type's name, and with reasons in words (`ErrorWording`): they end up in `visitors.csv`
/// and in the run's exit message.
package enum LiveTransportErrors {
    static func map(_ error: any Error) -> TransportError {
        switch error {
        case _ where TLSErrorWording.isTLS(error):
            // Only a refused certificate is `.tls` (the SDK's SSL error on a page load); an
            // unclean close or another handshake failure is a failed load (`TLSErrorWording`).
            return TLSErrorWording.transportError(error) ?? .other(plain(error))
        case let channelError as ChannelError:
            switch channelError {
            case .connectTimeout: return .timedOut
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: return .connectionReset
            case .writeHostUnreachable: return .connectFailed(ErrorWording.plain(channelError))
            default: return .other(ErrorWording.plain(channelError))
            }
        case let ioError as IOError:
            switch ioError.errnoCode {
            case ECONNRESET, EPIPE: return .connectionReset
            case ETIMEDOUT: return .timedOut
            default: return .connectFailed(ErrorWording.plain(ioError))
            }
        case let connectError as NIOConnectionError:
            return .connectFailed(words(connectError))
        case let parseError as HTTP1ResponseParser.ParseError:
            return .other(parseError.description)
        case let transportError as TransportError:
            return transportError
        default:
            return .other(plain(error))
        }
    }

    /// `ErrorWording` plus the types this module links that the client core does not: for
    /// any message a person reads (`serve`'s, the run's exit message).
    package static func plain(_ error: any Error) -> String {
        switch error {
        case let connectError as NIOConnectionError: words(connectError)
        case _ where TLSErrorWording.isTLS(error): TLSErrorWording.words(error)
        default: ErrorWording.plain(error)
        }
    }

    /// The options a listening address comes from, so the advice names the one to change.
    package enum ListenOptions: Sendable {
        /// `serve --host H --port P`.
        case hostAndPort
        /// `--metrics-listen HOST:PORT` (run and serve).
        case metricsListen
    }

    /// Why a server could not listen, with what to do about the usual causes, naming the option
    /// the address came from (`run` has no `--port`; its listener is `--metrics-listen`).
    package static func listenWords(_ error: any Error, from options: ListenOptions) -> String {
        let words = plain(error)
        guard let io = error as? IOError else { return words }
        switch (io.errnoCode, options) {
        case (EADDRINUSE, .hostAndPort): return words + "; choose another --port or stop the program using it"
        case (EADDRINUSE, .metricsListen):
            return words + "; choose another port in --metrics-listen or stop the program using it"
        case (EADDRNOTAVAIL, .hostAndPort): return words + "; --host must be an address of this machine"
        case (EADDRNOTAVAIL, .metricsListen):
            return words + "; the host in --metrics-listen must be an address of this machine"
        case (EACCES, .hostAndPort): return words + "; ports below 1024 need privileges, choose a higher --port"
        case (EACCES, .metricsListen):
            return words + "; ports below 1024 need privileges, choose a higher port in --metrics-listen"
        default: return words
        }
    }

    /// The DNS failure, or the first connection attempt's error.
    private static func words(_ error: NIOConnectionError) -> String {
        if error.dnsAError != nil || error.dnsAAAAError != nil {
            return "the host name \(error.host) could not be resolved"
        }
        if let first = error.connectionErrors.first {
            return ErrorWording.plain(first.error)
        }
        return "no address of \(error.host) accepted a connection"
    }
}
