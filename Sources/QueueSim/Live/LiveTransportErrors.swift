import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#endif

/// NIO's errors in the client core's vocabulary (`TransportError`), by type and errno, never by
/// a type's name.
enum LiveTransportErrors {
    static func map(_ error: any Error) -> TransportError {
        switch error {
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return .tls(String(describing: error))
        case let channelError as ChannelError:
            switch channelError {
            case .connectTimeout: return .timedOut
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: return .connectionReset
            case .writeHostUnreachable: return .connectFailed(String(describing: channelError))
            default: return .other(String(describing: channelError))
            }
        case let ioError as IOError:
            switch ioError.errnoCode {
            case ECONNRESET, EPIPE: return .connectionReset
            case ETIMEDOUT: return .timedOut
            default: return .connectFailed(String(describing: ioError))
            }
        case let connectError as NIOConnectionError:
            return .connectFailed(String(describing: connectError))
        case let parseError as HTTP1ResponseParser.ParseError:
            return .other(parseError.description)
        default:
            return .other(String(describing: error))
        }
    }
}
