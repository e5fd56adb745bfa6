import QueueClientCore

/// What `RequestStatistics` counts answers by: the endpoint asked and the status it answered.
extension RequestStatistics {
    package enum Endpoint: Int, CaseIterable, Sendable {
        case enqueue, queuePage, protectedApi

        /// The page's name, and `run.json`'s.
        var title: String {
            switch self {
            case .enqueue: "enqueue"
            case .queuePage: "queue page"
            case .protectedApi: "protected API"
            }
        }

        var key: String {
            switch self {
            case .enqueue: "enqueue"
            case .queuePage: "queue_page"
            case .protectedApi: "protected_api"
            }
        }

    }

    /// An HTTP status, or (below 100) a request that got no answer.
    package struct Status: Hashable, Comparable, Sendable {
        package var code: Int

        static let ok = Status(code: 200)
        static let timedOut = Status(code: -1)
        static let reset = Status(code: -2)
        static let connectFailed = Status(code: -3)
        static let tls = Status(code: -4)
        static let otherFailure = Status(code: -5)

        init(code: Int) { self.code = code }

        init(_ error: TransportError) {
            switch error {
            case .timedOut: self = .timedOut
            case .connectionReset: self = .reset
            case .connectFailed: self = .connectFailed
            case .tls: self = .tls
            case .other: self = .otherFailure
            }
        }

        /// An answer a client takes as an answer: 1xx–3xx. 4xx, 5xx and no answer are KO.
        var isOK: Bool { (100..<400).contains(code) }

        /// `200`, or the failure in words (`timeout`, `reset`, `connect failed`, `TLS error`, `failed`).
        var text: String {
            switch code {
            case -1: "timeout"
            case -2: "reset"
            case -3: "connect failed"
            case -4: "TLS error"
            case ..<100: "failed"
            default: String(code)
            }
        }

        /// Answers first, by code; failures after them.
        package static func < (lhs: Status, rhs: Status) -> Bool {
            (lhs.code < 0 ? 1 : 0, abs(lhs.code)) < (rhs.code < 0 ? 1 : 0, abs(rhs.code))
        }
    }
}
