import Foundation
import QueueClientCore
import Synchronization

/// What `run --metrics-listen`, `--metrics-linger` and `--metrics-push` do around one run.
///
/// - Wall clock: `/metrics` serves `LiveMetrics` from the start; a push of the current values
///   every `pushInterval`, and one more with the final values when the run has ended.
/// - Virtual clock: the run's seconds are simulated, so nothing is served during it; after it,
///   `metrics.prom` (a sample per run-wide series per second, a group's when it changes; the
///   run laid so that it ends when it ended) is pushed whole, in batches.
/// - Either way the listener keeps serving the final values for `linger` after the run, so the
///   last scrape sees the totals; SIGINT during the linger ends it at once.
///
/// A receiver that refuses or cannot be reached does not stop or fail the run: the first
/// failure is said once on stderr (`warn`: what failed, and why), and the final push's failure too.
/// Pushing never holds a run longer than it should: each request has one deadline for its whole
/// exchange, all pushing after the run shares `pushTimeout`, and cancelling `finish`'s task (a
/// signal) ends the push and the linger at once.
package final class MetricsSession: Sendable {
    package struct Settings: Sendable, Equatable {
        package var listen: ListenAddress?
        package var linger: Duration = .seconds(15)
        package var pushURL: PushURL?
        package var pushInterval: Duration = .seconds(5)
        /// The deadline for all pushing after the run (`--metrics-push-timeout`).
        package var pushTimeout: Duration = .seconds(30)
        /// How many of a virtual run's batches are in flight at once.
        package var pushParallelism = 4

        package init(
            listen: ListenAddress? = nil, linger: Duration = .seconds(15), pushURL: PushURL? = nil,
            pushTimeout: Duration = .seconds(30)
        ) {
            self.listen = listen
            self.linger = linger
            self.pushURL = pushURL
            self.pushTimeout = pushTimeout
        }

        /// A periodic push's deadline: 10 s, or the whole push timeout when that is shorter.
        package var periodicPushTimeout: Duration { min(.seconds(10), pushTimeout) }

        package var isEmpty: Bool { listen == nil && pushURL == nil }
    }

    /// `HOST:PORT` (`[::1]:9464`; `:9464` binds 127.0.0.1).
    package struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
        package var host: String
        package var port: Int

        package init?(_ text: String) {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                (0...65535).contains(port)
            else { return nil }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self.host = host.isEmpty ? "127.0.0.1" : host
            self.port = port
        }

        package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    private let settings: Settings
    private let live: LiveMetrics?
    private let warn: @Sendable (_ sentence: String) -> Void
    private let server: MetricsServer?
    private let pushLoop = Mutex<Task<Void, Never>?>(nil)
    private let warnedAboutPush = Atomic<Bool>(false)

    /// Binds the listener at once (throws when it cannot: the caller exits 3 before the run).
    /// `live`: the run's live values on the wall clock; nil on the virtual clock.
    /// `warn`: a sentence for stderr, the receiver's URL redacted in it.
    package init(
        settings: Settings, live: LiveMetrics?, warn: @escaping @Sendable (_ sentence: String) -> Void
    ) throws {
        self.settings = settings
        self.live = live
        self.warn = warn
        if let listen = settings.listen, let live {
            server = try MetricsServer(host: listen.host, port: listen.port) { live.render() }
        } else {
            server = nil
        }
    }

    /// The port `/metrics` listens on (the system's choice for port 0).
    package var port: Int? { server?.port }

    /// Starts pushing every `pushInterval` (wall clock with `--metrics-push`).
    package func start() {
        guard let url = settings.pushURL, let live else { return }
        let interval = settings.pushInterval
        let task = Task { [self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                _ = await push(live.snapshot(), to: url, final: false)
            }
        }
        pushLoop.withLock { $0 = task }
    }

    /// After the run: the final push (or the virtual run's whole series from `metricsFile`),
    /// then the linger. `interrupted`: checked during the linger, which it cuts short.
    /// Cancelling the calling task ends the push (within its race, at once) and the linger.
    /// Returns whether the push was cancelled before it was done.
    @discardableResult
    package func finish(metricsFile: String?, interrupted: @escaping @Sendable () -> Bool) async -> Bool {
        let loop = pushLoop.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        loop?.cancel()
        await loop?.value
        var cancelled = false
        if let url = settings.pushURL {
            if let live {
                cancelled = await push(live.snapshot(), to: url, final: true)
            } else if let metricsFile {
                cancelled = await pushFile(metricsFile, to: url)
            }
        }
        guard let server else { return cancelled }
        let end = ContinuousClock.now + settings.linger
        while ContinuousClock.now < end, !interrupted(), !Task.isCancelled {
            try? await Task.sleep(for: min(.milliseconds(100), end - ContinuousClock.now))
        }
        server.stop()
        return cancelled
    }

    /// One push of `snapshot`; returns whether it was cancelled.
    private func push(_ snapshot: MetricsSnapshot, to url: PushURL, final: Bool) async -> Bool {
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let body = RemoteWriteRequest.body(RemoteWriteRequest.series([(milliseconds, snapshot)]))
        do {
            try await RemoteWritePush.send(
                body, to: url, timeout: final ? settings.pushTimeout : settings.periodicPushTimeout)
        } catch {
            if error.reason == .cancelled {
                if final { warn("the final metrics push was cancelled: \(error)") }
                return true
            }
            if final {
                warn("the final metrics push failed: \(error)")
            } else if !warnedAboutPush.exchange(true, ordering: .relaxed) {
                warn(
                    "pushing metrics failed (the run goes on and keeps trying every \(ScenarioUnits.describe(settings.pushInterval))): \(error)"
                )
            }
        }
        return false
    }

    /// A virtual run's `metrics.prom`, in batches, `pushParallelism` at once, all within
    /// `pushTimeout`; the first failure stops the rest. Returns whether it was cancelled.
    private func pushFile(_ path: String, to url: PushURL) async -> Bool {
        let name = (path as NSString).lastPathComponent
        let batches: [[RemoteWriteRequest.TimeSeries]]
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            batches = MetricsFileSeries.batches(try MetricsFileSeries.series(text))
        } catch {
            warn("\(name) could not be read for the push: \(SecretRedaction.redact(ErrorWording.plain(error)))")
            return false
        }
        let deadline = ContinuousClock.now + settings.pushTimeout
        let (landed, failure) = await Self.pushInParallel(
            batches, to: url, deadline: deadline, parallelism: settings.pushParallelism)
        guard var failure else { return false }
        // The batches shared one deadline: the failure names it, not the time a batch had left.
        failure.timeout = settings.pushTimeout
        let count = "\(landed) of \(batches.count) batch(es) had landed"
        if failure.reason == .cancelled {
            warn("pushing \(name) was cancelled (\(count)): \(failure)")
            return true
        }
        warn("pushing \(name) failed (\(count)): \(failure)")
        return false
    }

    /// Sends `batches`, at most `parallelism` in flight, each with the time left until
    /// `deadline`; returns how many landed and the first failure.
    static func pushInParallel(
        _ batches: [[RemoteWriteRequest.TimeSeries]], to url: PushURL, deadline: ContinuousClock.Instant,
        parallelism: Int
    ) async -> (landed: Int, failure: PushFailure?) {
        await withTaskGroup(of: PushFailure?.self) { group in
            var next = 0
            var landed = 0
            var failure: PushFailure?
            func startNext() {
                guard next < batches.count, failure == nil else { return }
                let body = RemoteWriteRequest.body(batches[next])
                next += 1
                let left = max(deadline - ContinuousClock.now, .milliseconds(1))
                group.addTask {
                    do throws(PushFailure) {
                        try await RemoteWritePush.send(body, to: url, timeout: left)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            for _ in 0..<max(1, parallelism) { startNext() }
            while let result = await group.next() {
                if let result {
                    if failure == nil { failure = result }
                    group.cancelAll()
                } else {
                    landed += 1
                }
                startNext()
            }
            return (landed, failure)
        }
    }
}
