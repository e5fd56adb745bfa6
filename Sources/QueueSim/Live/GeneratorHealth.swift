import Foundation
import Histogram
import QueueClientCore

/// How well a live run's generator kept up, so its own delay is never mistaken for the
/// server's. Each event loop keeps one (no locks) and the runner merges them at the end.
///
/// Two lags are watched:
/// - **event-loop lag**: every loop runs a probe every `probeInterval`; how late it fires is
///   how late every timer of that loop (wake-ups, arrivals) fired then;
/// - **arrival lag**: from a visitor's intended arrival to its start, for visitors that did not
///   wait for a free place under `run.concurrency` (that wait is the scenario's cap, shown in
///   `start_ms`, not the generator's delay).
///
/// A second of the run is *saturated* when more than 1 % of its probes, or of its starts, were
/// over `saturationLag` — that is, when the lag's p99 in that second was over it.
struct GeneratorHealth {
    static let saturationLag: Duration = .milliseconds(50)
    static let probeInterval: Duration = .milliseconds(10)

    struct Second {
        var probes = 0
        var lateProbes = 0
        var starts = 0
        var lateStarts = 0
        var maxLoopLag: Duration = .zero

        var isSaturated: Bool {
            lateProbes * 100 > probes || lateStarts * 100 > starts
        }

        mutating func add(_ other: Second) {
            probes += other.probes
            lateProbes += other.lateProbes
            starts += other.starts
            lateStarts += other.lateStarts
            maxLoopLag = max(maxLoopLag, other.maxLoopLag)
        }
    }

    private(set) var seconds: [Second] = []
    /// Microseconds.
    private(set) var loopLag = GeneratorHealth.makeHistogram()
    private(set) var arrivalLag = GeneratorHealth.makeHistogram()
    /// Visitors whose start waited for a place under `run.concurrency`.
    private(set) var heldByConcurrency = 0
    /// Connections held open idle for nobody on this loop (its pool's `heldIdle`).
    var heldIdle = HeldIdleSeries()

    private static func makeHistogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .two)
    }

    mutating func probe(lag: Duration, at instant: RunInstant) {
        let lag = max(lag, .zero)
        modifySecond(of: instant) { second in
            second.probes += 1
            if lag > Self.saturationLag { second.lateProbes += 1 }
            second.maxLoopLag = max(second.maxLoopLag, lag)
        }
        _ = loopLag.record(Self.microseconds(lag))
    }

    mutating func started(lag: Duration, at instant: RunInstant) {
        let lag = max(lag, .zero)
        modifySecond(of: instant) { second in
            second.starts += 1
            if lag > Self.saturationLag { second.lateStarts += 1 }
        }
        _ = arrivalLag.record(Self.microseconds(lag))
    }

    mutating func startedAfterConcurrencyWait() {
        heldByConcurrency += 1
    }

    /// Whether the second `instant` falls in is saturated so far (for the live line).
    /// The largest event-loop lag of each second (metrics.prom's generator lag).
    var maxLoopLagPerSecond: [Duration] { seconds.map(\.maxLoopLag) }

    /// Seconds so far in which this loop could not keep its schedule.
    var saturatedSeconds: Int { seconds.reduce(0) { $0 + ($1.isSaturated ? 1 : 0) } }

    func isSaturated(at instant: RunInstant) -> Bool {
        let index = instant.secondOfRun
        return index < seconds.count && seconds[index].isSaturated
    }

    /// The largest loop lag seen in `instant`'s second so far.
    func loopLag(at instant: RunInstant) -> Duration {
        let index = instant.secondOfRun
        return index < seconds.count ? seconds[index].maxLoopLag : .zero
    }

    mutating func merge(_ other: GeneratorHealth) {
        if other.seconds.count > seconds.count {
            seconds.append(contentsOf: repeatElement(Second(), count: other.seconds.count - seconds.count))
        }
        for (index, second) in other.seconds.enumerated() { seconds[index].add(second) }
        loopLag.add(other.loopLag)
        arrivalLag.add(other.arrivalLag)
        heldByConcurrency += other.heldByConcurrency
        heldIdle.add(other.heldIdle)
    }

    func report(loops: Int, cpuSeconds: Double, visitors: Int, requests: Int) -> GeneratorReport {
        var windows: [GeneratorReport.Window] = []
        for (index, second) in seconds.enumerated() where second.isSaturated {
            if let last = windows.last, last.toSecond == index {
                windows[windows.count - 1].toSecond = index + 1
            } else {
                windows.append(GeneratorReport.Window(fromSecond: index, toSecond: index + 1))
            }
        }
        var report = GeneratorReport(
            loops: loops, cpuSeconds: cpuSeconds,
            cpuMicrosecondsPerRequest: requests > 0 ? cpuSeconds * 1e6 / Double(requests) : nil,
            cpuMicrosecondsPerVisitor: visitors > 0 ? cpuSeconds * 1e6 / Double(visitors) : nil,
            arrivalLagP50Ms: Self.milliseconds(arrivalLag, 50), arrivalLagP99Ms: Self.milliseconds(arrivalLag, 99),
            arrivalLagMaxMs: Self.milliseconds(arrivalLag, 100), loopLagP99Ms: Self.milliseconds(loopLag, 99),
            loopLagMaxMs: Self.milliseconds(loopLag, 100), visitorsHeldByConcurrency: heldByConcurrency,
            saturatedSeconds: windows.reduce(0) { $0 + $1.toSecond - $1.fromSecond }, saturatedWindows: windows)
        report.idleConnectionsPeak = heldIdle.peak > 0 ? heldIdle.peak : nil
        return report
    }

    private mutating func modifySecond(of instant: RunInstant, _ change: (inout Second) -> Void) {
        let index = instant.secondOfRun
        if index >= seconds.count {
            seconds.append(contentsOf: repeatElement(Second(), count: index + 1 - seconds.count))
        }
        change(&seconds[index])
    }

    private static func microseconds(_ duration: Duration) -> UInt64 {
        UInt64(clamping: duration.wholeNanoseconds / 1000)
    }

    private static func milliseconds(_ histogram: Histogram<UInt64>, _ percentile: Double) -> Double? {
        guard histogram.totalCount > 0 else { return nil }
        let micros = percentile >= 100 ? histogram.max : histogram.valueAtPercentile(percentile)
        return (Double(micros) / 1000 * 10).rounded() / 10
    }
}

/// The generator's health, as `run.json` (`generator`) and the end screen show it.
package struct GeneratorReport: Sendable, Equatable, Codable {
    /// Saturated seconds `fromSecond ..< toSecond` of the run's timeline.
    package struct Window: Sendable, Equatable, Codable {
        package var fromSecond: Int
        package var toSecond: Int

        enum CodingKeys: String, CodingKey {
            case fromSecond = "from_second"
            case toSecond = "to_second"
        }
    }

    /// Event loops (one per core) that ran the visitors.
    package var loops: Int
    /// CPU time (user + system) the whole process used during the run, the embedded room included.
    package var cpuSeconds: Double
    package var cpuMicrosecondsPerRequest: Double?
    package var cpuMicrosecondsPerVisitor: Double?
    package var arrivalLagP50Ms: Double?
    package var arrivalLagP99Ms: Double?
    package var arrivalLagMaxMs: Double?
    package var loopLagP99Ms: Double?
    package var loopLagMaxMs: Double?
    package var visitorsHeldByConcurrency: Int
    package var saturatedSeconds: Int
    package var saturatedWindows: [Window]
    /// Whose connections visitors rode (`client.connections`: `device`, `shared`, or both
    /// with the groups of each), and how many the run opened. Nil in a report from before.
    package var connections: String? = nil
    package var connectionsOpened: Int? = nil
    /// The most connections held open idle at once (by the second, over all loops) after their
    /// one exchange: Android's enqueue connections, which OkHttp leaves open in the abandoned
    /// client's pool. Nil when none was (a virtual run, iOS only, `shared`).
    package var idleConnectionsPeak: Int? = nil
    /// Which HTTP version each TLS endpoint's connections spoke, and their requests per
    /// connection (`ConnectionProtocolTally`). Nil without TLS connections.
    package var protocolsByEndpoint: [EndpointProtocolFigures]? = nil
    /// Visitors' TLS handshakes by platform, full and resumed (`ConnectionProtocolTally`): iOS
    /// resumes its sessions, Android does not. Nil without a visitor's TLS connection.
    package var tlsHandshakes: [String: TLSHandshakeFigures]? = nil
    /// The hosts visitors met mid-run that no route named, resolved by DNS (`MidRunHosts`):
    /// `host:port`, the first `resolvedHostsListed` in the order they were met, and how many
    /// in all. Nil when none was.
    package var resolvedHosts: [String]? = nil
    package var resolvedHostsCount: Int? = nil

    /// At most this many hosts met mid-run are named in run.json and on the end screen.
    static let resolvedHostsListed = 20

    /// Records the hosts resolved mid-run (`host:port`, in the order met).
    mutating func setResolvedHosts(_ hosts: [String]) {
        guard !hosts.isEmpty else { return }
        resolvedHosts = Array(hosts.prefix(Self.resolvedHostsListed))
        resolvedHostsCount = hosts.count
    }

    enum CodingKeys: String, CodingKey {
        case loops
        case cpuSeconds = "cpu_seconds"
        case cpuMicrosecondsPerRequest = "cpu_us_per_request"
        case cpuMicrosecondsPerVisitor = "cpu_us_per_visitor"
        case arrivalLagP50Ms = "arrival_lag_p50_ms"
        case arrivalLagP99Ms = "arrival_lag_p99_ms"
        case arrivalLagMaxMs = "arrival_lag_max_ms"
        case loopLagP99Ms = "loop_lag_p99_ms"
        case loopLagMaxMs = "loop_lag_max_ms"
        case visitorsHeldByConcurrency = "visitors_held_by_concurrency"
        case saturatedSeconds = "saturated_seconds"
        case saturatedWindows = "saturated_windows"
        case saturationThresholdMs = "saturation_threshold_ms"
        case connections
        case connectionsOpened = "connections_opened"
        case idleConnectionsPeak = "idle_connections_peak"
        case protocolsByEndpoint = "protocols_by_endpoint"
        case tlsHandshakes = "tls_handshakes"
        case resolvedHosts = "resolved_hosts"
        case resolvedHostsCount = "resolved_hosts_count"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(loops, forKey: .loops)
        try container.encode((cpuSeconds * 1000).rounded() / 1000, forKey: .cpuSeconds)
        try container.encode(
            cpuMicrosecondsPerRequest.map { ($0 * 10).rounded() / 10 }, forKey: .cpuMicrosecondsPerRequest)
        try container.encode(
            cpuMicrosecondsPerVisitor.map { ($0 * 10).rounded() / 10 }, forKey: .cpuMicrosecondsPerVisitor)
        try container.encode(arrivalLagP50Ms, forKey: .arrivalLagP50Ms)
        try container.encode(arrivalLagP99Ms, forKey: .arrivalLagP99Ms)
        try container.encode(arrivalLagMaxMs, forKey: .arrivalLagMaxMs)
        try container.encode(loopLagP99Ms, forKey: .loopLagP99Ms)
        try container.encode(loopLagMaxMs, forKey: .loopLagMaxMs)
        try container.encode(visitorsHeldByConcurrency, forKey: .visitorsHeldByConcurrency)
        try container.encode(saturatedSeconds, forKey: .saturatedSeconds)
        try container.encode(saturatedWindows, forKey: .saturatedWindows)
        try container.encode(GeneratorHealth.saturationLag.wholeNanoseconds / 1_000_000, forKey: .saturationThresholdMs)
        try container.encodeIfPresent(connections, forKey: .connections)
        try container.encodeIfPresent(connectionsOpened, forKey: .connectionsOpened)
        try container.encodeIfPresent(idleConnectionsPeak, forKey: .idleConnectionsPeak)
        try container.encodeIfPresent(protocolsByEndpoint, forKey: .protocolsByEndpoint)
        try container.encodeIfPresent(tlsHandshakes, forKey: .tlsHandshakes)
        try container.encodeIfPresent(resolvedHosts, forKey: .resolvedHosts)
        try container.encodeIfPresent(resolvedHostsCount, forKey: .resolvedHostsCount)
    }

    /// What follows the connection model on the end screen and report.html: how many
    /// connections were opened, how many were held open idle at the peak, and the hosts
    /// resolved mid-run.
    package var connectionCounts: String {
        (connectionsOpened.map { ", \($0) opened" } ?? "")
            + (idleConnectionsPeak.map { ", \($0) held open idle at the peak (Android enqueue connections)" } ?? "")
            + resolvedHostsWords
    }

    /// `; 2 hosts met mid-run resolved by DNS (a.example:443, b.example:443)`, or nothing.
    private var resolvedHostsWords: String {
        guard let resolvedHosts, let count = resolvedHostsCount else { return "" }
        let more = count > resolvedHosts.count ? " and \(count - resolvedHosts.count) more" : ""
        return "; \(count) host\(count == 1 ? "" : "s") met mid-run resolved by DNS "
            + "(\(resolvedHosts.joined(separator: ", "))\(more))"
    }

    /// The sentence the end screen prints: plain about what the numbers include.
    package var verdict: String {
        guard !saturatedWindows.isEmpty else {
            return "the load generator kept up (event-loop lag p99 \(Self.format(loopLagP99Ms)), "
                + "arrival lag p99 \(Self.format(arrivalLagP99Ms)))"
        }
        let spans = saturatedWindows.prefix(5).map { "\(Self.clock($0.fromSecond)) to \(Self.clock($0.toSecond))" }
        let more = saturatedWindows.count > 5 ? " and \(saturatedWindows.count - 5) more" : ""
        return "the load generator was saturated for \(saturatedSeconds) s: timings from "
            + spans.joined(separator: ", ") + more + " include its own delay"
    }

    static func format(_ milliseconds: Double?) -> String {
        guard let milliseconds else { return "-" }
        return milliseconds < 10 ? String(format: "%.1f ms", milliseconds) : String(format: "%.0f ms", milliseconds)
    }

    static func clock(_ second: Int) -> String {
        String(format: "%02d:%02d", second / 60, second % 60)
    }
}

extension GeneratorReport {
    /// Read back from `run.json` by `queuesim report DIR` (the threshold is a constant).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        loops = try container.decode(Int.self, forKey: .loops)
        cpuSeconds = try container.decode(Double.self, forKey: .cpuSeconds)
        cpuMicrosecondsPerRequest = try container.decodeIfPresent(Double.self, forKey: .cpuMicrosecondsPerRequest)
        cpuMicrosecondsPerVisitor = try container.decodeIfPresent(Double.self, forKey: .cpuMicrosecondsPerVisitor)
        arrivalLagP50Ms = try container.decodeIfPresent(Double.self, forKey: .arrivalLagP50Ms)
        arrivalLagP99Ms = try container.decodeIfPresent(Double.self, forKey: .arrivalLagP99Ms)
        arrivalLagMaxMs = try container.decodeIfPresent(Double.self, forKey: .arrivalLagMaxMs)
        loopLagP99Ms = try container.decodeIfPresent(Double.self, forKey: .loopLagP99Ms)
        loopLagMaxMs = try container.decodeIfPresent(Double.self, forKey: .loopLagMaxMs)
        visitorsHeldByConcurrency = try container.decode(Int.self, forKey: .visitorsHeldByConcurrency)
        saturatedSeconds = try container.decode(Int.self, forKey: .saturatedSeconds)
        saturatedWindows = try container.decode([Window].self, forKey: .saturatedWindows)
        connections = try container.decodeIfPresent(String.self, forKey: .connections)
        connectionsOpened = try container.decodeIfPresent(Int.self, forKey: .connectionsOpened)
        idleConnectionsPeak = try container.decodeIfPresent(Int.self, forKey: .idleConnectionsPeak)
        protocolsByEndpoint = try container.decodeIfPresent(
            [EndpointProtocolFigures].self, forKey: .protocolsByEndpoint)
        tlsHandshakes = try container.decodeIfPresent([String: TLSHandshakeFigures].self, forKey: .tlsHandshakes)
        resolvedHosts = try container.decodeIfPresent([String].self, forKey: .resolvedHosts)
        resolvedHostsCount = try container.decodeIfPresent(Int.self, forKey: .resolvedHostsCount)
    }
}

/// Connections held open idle for nobody (`ConnectionPoolStateMachine`'s `held`), the most at
/// once in each second of the run. A second no change touched keeps the level it began with,
/// so loops' series add up second by second into the run's.
struct HeldIdleSeries: Sendable, Equatable {
    /// By second of the run.
    private(set) var most: [Int] = []
    /// The count now (after the last change recorded).
    private(set) var level = 0

    /// The count became `count` in second `second` of the run.
    mutating func record(_ count: Int, atSecond second: Int) {
        let second = max(0, second)
        if second >= most.count {
            most.append(contentsOf: repeatElement(level, count: second + 1 - most.count))
        }
        most[second] = max(most[second], count)
        level = count
    }

    mutating func add(_ other: HeldIdleSeries) {
        if other.most.count > most.count {
            most.append(contentsOf: repeatElement(0, count: other.most.count - most.count))
        }
        for (second, count) in other.most.enumerated() { most[second] += count }
        level += other.level
    }

    /// The most held at once in any second (0: none ever).
    var peak: Int { most.max() ?? 0 }
}
