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
            return .tls(TLSErrorWording.words(error))
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

    /// Why a server could not listen, with what to do about the usual causes.
    package static func listenWords(_ error: any Error) -> String {
        let words = plain(error)
        guard let io = error as? IOError else { return words }
        switch io.errnoCode {
        case EADDRINUSE: return words + "; choose another --port or stop the program using it"
        case EADDRNOTAVAIL: return words + "; --host must be an address of this machine"
        case EACCES: return words + "; ports below 1024 need privileges, choose a higher --port"
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
