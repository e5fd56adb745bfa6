import QueueClientCore

/// A run's metrics second by second, for `metrics.prom`: what a Prometheus scraping the run
/// every second would have stored (a group's series sparsely, as `SampleSchedule` says), rebuilt exactly from every visitor's row (arrivals,
/// outcomes, the queue, waits) and the answers the engines counted (requests by status, their
/// times). The same on both clocks; on the virtual clock the seconds are simulated ones.
struct RunMetricsSeries {
    /// One group's columns, made when the group's first visitor is recorded: a group without
    /// visitors reads as zeros, and a scenario of 2,000 groups pays for those that had some.
    private struct GroupColumns {
        var arrivals = PerSecondCounts()
        /// Per outcome (`VisitorOutcome.allCases` order).
        var finished = [PerSecondCounts](repeating: PerSecondCounts(), count: VisitorOutcome.allCases.count)
        /// Changes of the gauge: +1 when a visitor enters, -1 the second it leaves.
        var inQueueChanges = PerSecondCounts()
        /// Finished waits per second in each `MetricCatalog.waitBuckets` bucket, and their sum
        /// in milliseconds.
        var waitBuckets = [PerSecondCounts](repeating: PerSecondCounts(), count: waitBoundsMs.count + 1)
        var waitSumMs = PerSecondCounts()
    }

    private let groupNames: [String]
    private var groupIndex: [String: Int]
    /// The group of the last row: rows come in runs of one group, and hashing its name for
    /// every visitor was most of this type's time on the row writer's thread.
    private var lastGroup: (name: String, index: Int)?
    /// By group index (declared groups first, then undeclared ones as they come); nil for a
    /// group with no visitor yet.
    private var columns: [GroupColumns?]
    private var inFlightChanges = PerSecondCounts()
    private static let waitBoundsMs: [Int64] = MetricCatalog.waitBuckets.map { Int64(($0 * 1000).rounded()) }

    init(groupNames: [String]) {
        self.groupNames = groupNames
        groupIndex = Dictionary(groupNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        columns = Array(repeating: nil, count: groupNames.count)
    }

    /// Groups whose columns exist (those that had a visitor): what a run of many groups pays for.
    var groupsWithColumns: Int { columns.count { $0 != nil } }

    private var allGroupNames: [String] {
        groupNames + groupIndex.filter { $0.value >= groupNames.count }.sorted { $0.value < $1.value }.map(\.key)
    }

    private mutating func groupColumn(_ name: String) -> Int {
        let group: Int
        if let last = lastGroup, last.name == name {
            group = last.index
        } else if let known = groupIndex[name] {
            group = known
        } else {
            group = columns.count
            groupIndex[name] = group
            columns.append(nil)
        }
        lastGroup = (name, group)
        if columns[group] == nil { columns[group] = GroupColumns() }
        return group
    }

    mutating func add(_ record: VisitorRecord) {
        let group = groupColumn(record.group)
        let endSecond = Timeline.second(of: record.ended)
        inFlightChanges.add(at: Timeline.second(of: record.start))
        inFlightChanges.add(at: endSecond, -1)
        // Mutated in place through the optional: a copy would copy every column per visitor.
        columns[group]!.arrivals.add(at: Timeline.second(of: record.arrival))
        columns[group]!.finished[record.outcome.ordinal].add(at: endSecond)
        if let entered = record.queueEntered {
            countInQueue(group, from: entered, to: record.ended)
            var bucket = 0
            while bucket < Self.waitBoundsMs.count, record.waitMilliseconds > Self.waitBoundsMs[bucket] { bucket += 1 }
            columns[group]!.waitBuckets[bucket].add(at: endSecond)
            columns[group]!.waitSumMs.add(at: endSecond, Int(record.waitMilliseconds))
        }
        for stay in record.earlierStays { countInQueue(group, from: stay.entered, to: stay.left) }
    }

    /// As timeline.csv's `in_queue`: on the page at the end of second s.
    private mutating func countInQueue(_ group: Int, from entered: RunInstant, to left: RunInstant) {
        let first = Timeline.second(of: entered)
        let last = Timeline.second(of: left) - 1
        guard first <= last else { return }
        columns[group]!.inQueueChanges.add(at: first)
        columns[group]!.inQueueChanges.add(at: last + 1, -1)
    }

    /// One snapshot per second `0..<seconds`, the values at the end of each second.
    /// `groupSeries: false` leaves the groups' series out: metrics.prom writes them group by
    /// group (`MetricsFileGroups`, the same bytes), which costs what the groups' changes cost
    /// rather than groups × seconds.
    func snapshots(
        seconds: Int, identity: MetricsSnapshot.Identity, answers: RequestStatistics, saturated: Set<Int>,
        room: RoomSeries? = nil, generatorLag: [Duration]? = nil, groupSeries: Bool = true
    ) -> [MetricsSnapshot] {
        let names = groupSeries ? allGroupNames : []
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
        var schedules = names.indices.map { sampleSchedules(of: $0, seconds: seconds) }
        var snapshots: [MetricsSnapshot] = []
        snapshots.reserveCapacity(seconds)
        for second in 0..<seconds {
            var snapshot = MetricsSnapshot(identity: identity)
            for group in names.indices {
                if columns[group] != nil {
                    accumulate(
                        group, second: second, arrived: &arrived[group], ended: &ended[group],
                        inQueue: &inQueue[group], waits: &waits[group])
                }
                // Each series once per snapshot, in group order: no search for an existing one.
                // A group's series only at the seconds its `SampleSchedule` names (lossless).
                if schedules[group].arrivals.samples(second) {
                    snapshot.setNew(MetricCatalog.arrivals, [names[group]], Double(arrived[group]))
                }
                if schedules[group].finished.samples(second) {
                    for (index, outcome) in outcomes.enumerated() where ended[group][index] > 0 {
                        snapshot.setNew(
                            MetricCatalog.visitors, [names[group], outcome.rawValue], Double(ended[group][index]))
                    }
                }
                if schedules[group].inQueue.samples(second) {
                    snapshot.setNew(MetricCatalog.inQueue, [names[group]], Double(inQueue[group]))
                }
                if schedules[group].wait.samples(second) {
                    snapshot.setNew(MetricCatalog.wait, [names[group]], histogram: waits[group])
                }
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

extension RunMetricsSeries {
    /// One group's counts by second, each list ascending, seconds without a count left out:
    /// what metrics.prom's series of the group are written from (`MetricsFileGroups`).
    struct GroupChanges {
        var arrivals: [(second: Int, count: Int)]
        /// Per outcome (`VisitorOutcome.allCases` order).
        var finished: [[(second: Int, count: Int)]]
        /// The queue's net change per second.
        var inQueue: [(second: Int, count: Int)]
        /// Per `MetricCatalog.waitBuckets` bucket and `+Inf`.
        var waitBuckets: [[(second: Int, count: Int)]]
        var waitSumMs: [(second: Int, count: Int)]
    }

    /// Every group (declared ones first, then undeclared ones as they came) and its changes,
    /// nil for a group without visitors.
    var groupChanges: [(name: String, changes: GroupChanges?)] {
        zip(allGroupNames, columns).map { name, columns in
            (
                name,
                columns.map {
                    GroupChanges(
                        arrivals: $0.arrivals.nonZero, finished: $0.finished.map(\.nonZero),
                        inQueue: $0.inQueueChanges.nonZero, waitBuckets: $0.waitBuckets.map(\.nonZero),
                        waitSumMs: $0.waitSumMs.nonZero)
                }
            )
        }
    }

    /// When each of a group's series has a sample in metrics.prom.
    private struct GroupSchedules {
        var arrivals: SampleSchedule
        /// Every `queuesim_visitors_total` series of the group (one per outcome seen).
        var finished: SampleSchedule
        var inQueue: SampleSchedule
        var wait: SampleSchedule
    }

    /// The seconds each of the group's values changes at are the seconds its columns count
    /// something in (the queue's: where its net change is not zero).
    private func sampleSchedules(of group: Int, seconds: Int) -> GroupSchedules {
        guard let columns = columns[group] else {
            let none = SampleSchedule(changes: [], seconds: seconds)
            return GroupSchedules(arrivals: none, finished: none, inQueue: none, wait: none)
        }
        func changes(_ list: [PerSecondCounts]) -> [Int] { list.flatMap { $0.nonZero.map(\.second) } }
        return GroupSchedules(
            arrivals: SampleSchedule(changes: changes([columns.arrivals]), seconds: seconds),
            finished: SampleSchedule(changes: changes(columns.finished), seconds: seconds),
            inQueue: SampleSchedule(changes: changes([columns.inQueueChanges]), seconds: seconds),
            wait: SampleSchedule(changes: changes(columns.waitBuckets), seconds: seconds))
    }

    /// Adds a group's counts of `second` to its running totals (the group has columns).
    private func accumulate(
        _ group: Int, second: Int, arrived: inout Int, ended: inout [Int], inQueue: inout Int,
        waits: inout BucketCounts
    ) {
        let columns = self.columns[group]!
        arrived += columns.arrivals[second]
        inQueue += columns.inQueueChanges[second]
        for outcome in ended.indices { ended[outcome] += columns.finished[outcome][second] }
        for bucket in 0...Self.waitBoundsMs.count {
            let count = columns.waitBuckets[bucket][second]
            guard count > 0 else { continue }
            let seconds = bucket < Self.waitBoundsMs.count ? MetricCatalog.waitBuckets[bucket] : .infinity
            waits.add(UInt64(count), toBucketOf: seconds)
        }
        waits.addToSum(milliseconds: Int64(columns.waitSumMs[second]))
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
