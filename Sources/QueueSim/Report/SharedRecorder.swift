import Foundation
import QueueClientCore

/// A `Recorder` many tasks can feed at once (the wall-clock runner: one task per visitor, and
/// every HTTP request counted as it goes out).
///
/// A lock rather than an actor: recording is a few microseconds of synchronous work, so an
/// `await` per request and per visitor would cost more than the work. `@unchecked Sendable` is
/// sound because every access to `recorder` happens under `lock`.
public final class SharedRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private let recorder: Recorder

    public init(directory: String, description: RunDescription) throws {
        recorder = try Recorder(directory: directory, description: description)
    }

    public func record(_ record: VisitorRecord) throws {
        try lock.withLock { try recorder.record(record) }
    }

    public func recordRequest(at instant: Instant) {
        lock.withLock { recorder.recordRequest(at: instant) }
    }

    public var recordedCount: Int { lock.withLock { recorder.recordedCount } }

    public var measurements: RunMeasurements { lock.withLock { recorder.measurements } }

    public func finish(_ ending: RunEnding) throws -> RunReport {
        try lock.withLock { try recorder.finish(ending) }
    }
}
