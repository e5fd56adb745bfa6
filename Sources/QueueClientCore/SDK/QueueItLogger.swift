import Foundation
import Logging

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
    private final class LevelBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: QueueItLogLevel = .warn
        var level: QueueItLogLevel {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    private static let box = LevelBox()

    public static func setLogLevel(_ level: QueueItLogLevel) {
        box.level = level
    }

    public static var logLevel: QueueItLogLevel { box.level }

    /// A logger at the current level.
    static var logger: Logger {
        var logger = Logger(label: "queueit")
        logger.logLevel = box.level.swiftLogLevel
        return logger
    }
}
