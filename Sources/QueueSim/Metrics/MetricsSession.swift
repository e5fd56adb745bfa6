import Foundation
import Synchronization

/// What `run --metrics-listen`, `--metrics-linger` and `--metrics-push` do around one run.
///
/// - Wall clock: `/metrics` serves `LiveMetrics` from the start; a push of the current values
///   every `pushInterval`, and one more with the final values when the run has ended.
/// - Virtual clock: the run's seconds are simulated, so nothing is served during it; after it,
///   `metrics.prom` (one sample per series per second, the run laid so that it ends when it
///   ended) is pushed whole, in batches.
/// - Either way the listener keeps serving the final values for `linger` after the run, so the
///   last scrape sees the totals; SIGINT during the linger ends it at once.
///
/// A receiver that refuses or cannot be reached does not stop or fail the run: the first
/// failure is said once on stderr (`warn`: what failed, and why), and the final push's failure too.
package final class MetricsSession: Sendable {
    package struct Settings: Sendable, Equatable {
        package var listen: ListenAddress?
        package var linger: Duration = .seconds(15)
        package var pushURL: String?
        package var pushInterval: Duration = .seconds(5)

        package init(listen: ListenAddress? = nil, linger: Duration = .seconds(15), pushURL: String? = nil) {
            self.listen = listen
            self.linger = linger
            self.pushURL = pushURL
        }

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
    private let warn: @Sendable (_ what: String, _ error: any Error) -> Void
    private let server: MetricsServer?
    private let pushLoop = Mutex<Task<Void, Never>?>(nil)
    private let warnedAboutPush = Atomic<Bool>(false)

    /// Binds the listener at once (throws when it cannot: the caller exits 3 before the run).
    /// `live`: the run's live values on the wall clock; nil on the virtual clock.
    package init(
        settings: Settings, live: LiveMetrics?, warn: @escaping @Sendable (_ what: String, _ error: any Error) -> Void
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
                await push(live.snapshot(), to: url, final: false)
            }
        }
        pushLoop.withLock { $0 = task }
    }

    /// After the run: the final push (or the virtual run's whole series from `metricsFile`),
    /// then the linger. `interrupted`: checked during the linger, which it cuts short.
    package func finish(metricsFile: String?, interrupted: @escaping @Sendable () -> Bool) async {
        let loop = pushLoop.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        loop?.cancel()
        await loop?.value
        if let url = settings.pushURL {
            if let live {
                await push(live.snapshot(), to: url, final: true)
            } else if let metricsFile {
                await pushFile(metricsFile, to: url)
            }
        }
        guard let server else { return }
        let end = ContinuousClock.now + settings.linger
        while ContinuousClock.now < end, !interrupted() {
            try? await Task.sleep(for: min(.milliseconds(100), end - ContinuousClock.now))
        }
        server.stop()
    }

    private func push(_ snapshot: MetricsSnapshot, to url: String, final: Bool) async {
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let body = RemoteWriteRequest.body(RemoteWriteRequest.series([(milliseconds, snapshot)]))
        do {
            try await RemoteWritePush.send(body, to: url)
        } catch {
            if final {
                warn("the final metrics push to \(url) failed", error)
            } else if !warnedAboutPush.exchange(true, ordering: .relaxed) {
                warn(
                    "pushing metrics to \(url) failed (the run goes on and keeps trying every \(ScenarioUnits.describe(settings.pushInterval)))",
                    error)
            }
        }
    }

    private func pushFile(_ path: String, to url: String) async {
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for batch in MetricsFileSeries.batches(try MetricsFileSeries.series(text)) {
                try await RemoteWritePush.send(RemoteWriteRequest.body(batch), to: url)
            }
        } catch {
            warn("pushing \(path) to \(url) failed", error)
        }
    }
}
