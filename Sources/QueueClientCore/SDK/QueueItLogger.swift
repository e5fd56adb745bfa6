import Foundation
import Logging
import Synchronization

/// The SDK's log levels.
public enum QueueItLogLevel: String, Sendable, Hashable, CaseIterable {
    case debug, info, warn, error, fatal

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

    public static func setLogLevel(_ level: QueueItLogLevel) {
        self.level.withLock { $0 = level }
    }

    public static var logLevel: QueueItLogLevel { level.withLock { $0 } }

    /// A logger at the current level.
    static var logger: Logger {
        var logger = Logger(label: "queueit")
        logger.logLevel = logLevel.swiftLogLevel
        return logger
    }
}
