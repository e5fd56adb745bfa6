import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import QueueClientCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why a push failed, in the words a user reads on stderr: never an error type's name
/// ("CancellationError", "NIOTooManyBytesError") or a parser's ("invalid constant string"),
/// and the receiver named by its redacted URL (`PushURL.description`).
package struct PushFailure: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        case refused
        case unreachable(String)
        /// The deadline passed before the answer's head.
        case noAnswer
        /// The deadline passed after the head, with this many bytes of body.
        case stalledAfterHead(bodyBytes: Int)
        case closedBeforeAnswer
        case closedDuringAnswer
        case notHTTP
        case answered(status: Int, reason: String)
        case answerTooLarge
        case cancelled
        case other(String)
    }

    package var receiver: String
    package var reason: Reason
    package var timeout: Duration

    package var description: String {
        let within = ScenarioUnits.describe(timeout)
        switch reason {
        case .refused: return "the receiver at \(receiver) refused the connection (nothing listens there)"
        case .unreachable(let words): return "the receiver at \(receiver) could not be reached: \(words)"
        case .noAnswer: return "no answer from \(receiver) within \(within)"
        case .stalledAfterHead(0): return "the receiver at \(receiver) sent its headers and then nothing for \(within)"
        case .stalledAfterHead(let bytes):
            return "the receiver at \(receiver) sent its headers and then its answer too slowly "
                + "(\(bytes) byte(s) of it within \(within))"
        case .closedBeforeAnswer: return "the receiver at \(receiver) closed the connection without answering"
        case .closedDuringAnswer:
            return "the receiver at \(receiver) closed the connection before its answer was complete"
        case .notHTTP: return "the receiver at \(receiver) did not answer in HTTP"
        case .answered(let status, let reason):
            return "the receiver at \(receiver) answered \(status)" + (reason.isEmpty ? "" : ": \(reason)")
        case .answerTooLarge:
            return "the answer from \(receiver) was larger than \(RemoteWritePush.answerLimit / 1024) KiB"
        case .cancelled: return "the push to \(receiver) was cancelled"
        case .other(let words): return "pushing to \(receiver) failed: \(words)"
        }
    }

    /// An answer body's first line as a reason: redacted, printable, at most 200 characters.
    static func firstLine(_ text: String) -> String {
        let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
        let printable = String(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        let redacted = SecretRedaction.redact(printable.trimmingCharacters(in: .whitespaces))
        return redacted.count > 200 ? String(redacted.prefix(200)) + "…" : redacted
    }

    /// An error of the exchange as a reason, by type and errno.
    static func reason(for error: any Error, headArrived: Bool) -> Reason {
        switch error {
        case is CancellationError: return .cancelled
        case _ where TLSErrorWording.isTLS(error):
            return .unreachable("TLS failed: " + SecretRedaction.redact(TLSErrorWording.words(error)))
        case is HTTPParserError: return .notHTTP
        case let client as HTTPClientError:
            switch client {
            case .cancelled: return .cancelled
            case .deadlineExceeded, .readTimeout: return headArrived ? .stalledAfterHead(bodyBytes: 0) : .noAnswer
            case .remoteConnectionClosed, .uncleanShutdown:
                return headArrived ? .closedDuringAnswer : .closedBeforeAnswer
            case .bodyLengthMismatch: return .closedDuringAnswer
            default: return .other(ErrorWording.plain(client))
            }
        case let connect as NIOConnectionError:
            if connect.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
                return .refused
            }
            return .unreachable(
                SecretRedaction.redact(ErrorWording.plain(connect.connectionErrors.first?.error ?? connect)))
        case let io as IOError:
            switch io.errnoCode {
            case ECONNREFUSED: return .refused
            case ECONNRESET, EPIPE: return headArrived ? .closedDuringAnswer : .closedBeforeAnswer
            default: return .unreachable(ErrorWording.plain(io))
            }
        case let channel as ChannelError:
            switch channel {
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof:
                return headArrived ? .closedDuringAnswer : .closedBeforeAnswer
            default: return .unreachable(ErrorWording.plain(channel))
            }
        default:
            return .other(SecretRedaction.redact(ErrorWording.plain(error)))
        }
    }
}

/// What the exchange has received so far, so a deadline says which part was missing.
final class ExchangeProgress: Sendable {
    private let state = Mutex((head: false, bodyBytes: 0))

    func headArrived() { state.withLock { $0.head = true } }
    func received(_ count: Int) { state.withLock { $0.bodyBytes += count } }
    var hasHead: Bool { state.withLock { $0.head } }

    func timedOut() -> PushFailure.Reason {
        state.withLock { $0.head ? .stalledAfterHead(bodyBytes: $0.bodyBytes) : .noAnswer }
    }
}
