import Foundation
import Logging
import Synchronization

/// The SDK's log levels, each mapped onto a swift-log level; a level lets through itself and
/// everything more severe.
public enum QueueItLogLevel: String, Sendable, Hashable, CaseIterable {
    /// Every step: each enqueue attempt as well (swift-log `debug`).
    case debug
    /// Outcomes as they happen: passed, disabled (swift-log `info`).
    case info
    /// Only what went wrong or ran out, such as a wait that expired; the default (swift-log
    /// `warning`).
    case warn
    /// Only failures: enqueue errors, Queue-it unavailable (swift-log `error`).
    case error
    /// Nothing this engine writes today (swift-log `critical`).
    case fatal

    var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warn: .warning
        case .error: .error
        case .fatal: .critical
        }
    }
}

/// `QueueItLogger.setLogLevel(.debug)`, over swift-log (label `queueit`). Tokens are never
/// logged, only whether one was present.
public enum QueueItLogger {
    private static let level = Mutex<QueueItLogLevel>(.warn)

    /// The SDK's `QueueItLogger.setLogLevel(.debug)`: from the next line on, for every engine
    /// of the process. Where the lines go is swift-log's bootstrap, which the app owns.
    public static func setLogLevel(_ level: QueueItLogLevel) {
        self.level.withLock { $0 = level }
    }

    /// The level in force: the last one set, `.warn` until then.
    public static var logLevel: QueueItLogLevel { level.withLock { $0 } }

    /// A logger at the current level.
    static var logger: Logger {
        var logger = Logger(label: "queueit")
        logger.logLevel = logLevel.swiftLogLevel
        return logger
    }
}
