import QueueClientCore

/// A run's metrics second by second, for `metrics.prom`: what a Prometheus scraping the run
/// every second would have stored, rebuilt exactly from every visitor's row (arrivals,
/// outcomes, the queue, waits) and the answers the engines counted (requests by status, their
/// times). The same on both clocks; on the virtual clock the seconds are simulated ones.
struct RunMetricsSeries {
    private let groupNames: [String]
    private var groupIndex: [String: Int]
    /// The group of the last row: rows come in runs of one group, and hashing its name for
    /// every visitor was most of this type's time on the row writer's thread.
    private var lastGroup: (name: String, index: Int)?
    private var arrivals: [PerSecondCounts]
    /// Per group, per outcome (`VisitorOutcome.allCases` order).
    private var finished: [[PerSecondCounts]]
    /// Changes of the gauges: +1 when a visitor enters, -1 the second it leaves.
    private var inQueueChanges: [PerSecondCounts]
    private var inFlightChanges = PerSecondCounts()
    /// Per group, finished waits per second in each `MetricCatalog.waitBuckets` bucket, and
    /// their sum in milliseconds.
    private var waitBuckets: [[PerSecondCounts]]
    private var waitSumMs: [PerSecondCounts]
    private static let waitBoundsMs: [Int64] = MetricCatalog.waitBuckets.map { Int64(($0 * 1000).rounded()) }

    init(groupNames: [String]) {
        self.groupNames = groupNames
        groupIndex = Dictionary(groupNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        arrivals = []
        finished = []
        inQueueChanges = []
        waitBuckets = []
        waitSumMs = []
        for _ in groupNames { addGroupColumns() }
    }

    private var allGroupNames: [String] {
        groupNames + groupIndex.filter { $0.value >= groupNames.count }.sorted { $0.value < $1.value }.map(\.key)
    }

    private mutating func addGroupColumns() {
        arrivals.append(PerSecondCounts())
        finished.append(Array(repeating: PerSecondCounts(), count: VisitorOutcome.allCases.count))
        inQueueChanges.append(PerSecondCounts())
        waitBuckets.append(Array(repeating: PerSecondCounts(), count: Self.waitBoundsMs.count + 1))
        waitSumMs.append(PerSecondCounts())
    }

    mutating func add(_ record: VisitorRecord) {
        let group: Int
        if let last = lastGroup, last.name == record.group {
            group = last.index
        } else if let known = groupIndex[record.group] {
            group = known
        } else {
            group = arrivals.count
            groupIndex[record.group] = group
            addGroupColumns()
        }
        lastGroup = (record.group, group)
        arrivals[group].add(at: Timeline.second(of: record.arrival))
        let endSecond = Timeline.second(of: record.ended)
        finished[group][record.outcome.ordinal].add(at: endSecond)
        inFlightChanges.add(at: Timeline.second(of: record.start))
        inFlightChanges.add(at: endSecond, -1)
        if let entered = record.queueEntered {
            countInQueue(group, from: entered, to: record.ended)
            var bucket = 0
            while bucket < Self.waitBoundsMs.count, record.waitMilliseconds > Self.waitBoundsMs[bucket] { bucket += 1 }
            waitBuckets[group][bucket].add(at: endSecond)
            waitSumMs[group].add(at: endSecond, Int(record.waitMilliseconds))
        }
        for stay in record.earlierStays { countInQueue(group, from: stay.entered, to: stay.left) }
    }

    /// As timeline.csv's `in_queue`: on the page at the end of second s.
    private mutating func countInQueue(_ group: Int, from entered: RunInstant, to left: RunInstant) {
        let first = Timeline.second(of: entered)
        let last = Timeline.second(of: left) - 1
        guard first <= last else { return }
        inQueueChanges[group].add(at: first)
        inQueueChanges[group].add(at: last + 1, -1)
    }

    /// One snapshot per second `0..<seconds`, the values at the end of each second.
    func snapshots(
        seconds: Int, identity: MetricsSnapshot.Identity, answers: RequestStatistics, saturated: Set<Int>,
        room: RoomSeries? = nil, generatorLag: [Duration]? = nil
    ) -> [MetricsSnapshot] {
        let names = allGroupNames
        let outcomes = VisitorOutcome.allCases
        var arrived = Array(repeating: 0, count: names.count)
        var ended = Array(repeating: Array(repeating: 0, count: outcomes.count), count: names.count)
        var inQueue = Array(repeating: 0, count: names.count)
        var inFlight = 0
        var waits = names.map { _ in BucketCounts(bounds: MetricCatalog.waitBuckets) }
        let endpoints = RequestStatistics.Endpoint.allCases
        var statusTotals = endpoints.map { endpoint in answers.cells[endpoint.rawValue].map { _ in 0 } }
        var latencies = endpoints.map { _ in BucketCounts(bounds: MetricCatalog.requestBuckets) }
        var saturatedSeconds = 0
        var snapshots: [MetricsSnapshot] = []
        snapshots.reserveCapacity(seconds)
        for second in 0..<seconds {
            var snapshot = MetricsSnapshot(identity: identity)
            for group in names.indices {
                arrived[group] += arrivals[group][second]
                inQueue[group] += inQueueChanges[group][second]
                for outcome in outcomes.indices { ended[group][outcome] += finished[group][outcome][second] }
                for bucket in 0...Self.waitBoundsMs.count {
                    let count = waitBuckets[group][bucket][second]
                    guard count > 0 else { continue }
                    let seconds = bucket < Self.waitBoundsMs.count ? MetricCatalog.waitBuckets[bucket] : .infinity
                    waits[group].add(UInt64(count), toBucketOf: seconds)
                }
                waits[group].addToSum(milliseconds: Int64(waitSumMs[group][second]))
                snapshot.set(MetricCatalog.arrivals, [names[group]], Double(arrived[group]))
                for (index, outcome) in outcomes.enumerated() where ended[group][index] > 0 {
                    snapshot.set(MetricCatalog.visitors, [names[group], outcome.rawValue], Double(ended[group][index]))
                }
                snapshot.set(MetricCatalog.inQueue, [names[group]], Double(inQueue[group]))
                snapshot.set(MetricCatalog.wait, [names[group]], histogram: waits[group])
            }
            inFlight += inFlightChanges[second]
            snapshot.set(MetricCatalog.inFlight, [], Double(inFlight))
            for endpoint in endpoints {
                for (index, cell) in answers.cells[endpoint.rawValue].enumerated() {
                    statusTotals[endpoint.rawValue][index] += cell.perSecond[second]
                    guard statusTotals[endpoint.rawValue][index] > 0 else { continue }
                    snapshot.set(
                        MetricCatalog.requests, [endpoint.metricLabel, cell.status.metricLabel],
                        Double(statusTotals[endpoint.rawValue][index]))
                }
                for bucket in 0...RequestStatistics.latencyBoundsMs.count {
                    let count = answers.latencyBuckets[endpoint.rawValue][bucket][second]
                    guard count > 0 else { continue }
                    let seconds =
                        bucket < MetricCatalog.requestBuckets.count ? MetricCatalog.requestBuckets[bucket] : .infinity
                    latencies[endpoint.rawValue].add(UInt64(count), toBucketOf: seconds)
                }
                latencies[endpoint.rawValue].addToSum(
                    milliseconds: Int64(answers.latencySumMs[endpoint.rawValue][second]))
                if latencies[endpoint.rawValue].count > 0 {
                    snapshot.set(
                        MetricCatalog.requestDuration, [endpoint.metricLabel], histogram: latencies[endpoint.rawValue])
                }
            }
            if let generatorLag {
                let lag = second < generatorLag.count ? generatorLag[second] : .zero
                let (whole, attoseconds) = lag.components
                snapshot.set(MetricCatalog.generatorLag, [], Double(whole) + Double(attoseconds) / 1e18)
            }
            if saturated.contains(second) { saturatedSeconds += 1 }
            snapshot.set(MetricCatalog.generatorSaturated, [], Double(saturatedSeconds))
            if let figures = room?.figures(atSecond: second) {
                snapshot.set(MetricCatalog.roomQueueLength, [], Double(figures.queueLength))
                snapshot.set(MetricCatalog.roomReleased, [], Double(figures.released))
            }
            snapshots.append(snapshot)
        }
        return snapshots
    }
}

extension RequestStatistics.Endpoint {
    /// The `endpoint` label: `enqueue`, `queue_page`, `protected_api`.
    var metricLabel: String {
        switch self {
        case .enqueue: "enqueue"
        case .queuePage: "queue_page"
        case .protectedApi: "protected_api"
        }
    }
}

extension RequestStatistics.Status {
    /// The `status` label: the HTTP status, or `error` for a request that got no answer.
    var metricLabel: String { code > 0 ? String(code) : "error" }
}
