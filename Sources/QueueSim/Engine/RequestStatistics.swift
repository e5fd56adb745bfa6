import Histogram

/// Every answer a run's requests got, by endpoint and status: the page's per-endpoint table
/// (Gatling's STATISTICS, Locust's Request Statistics), `run.json`'s `requests_by_endpoint`,
/// the requests-per-second chart by endpoint and status, and the queue page's latency over
/// time. Filled where the engine takes an answer (and where the virtual clock's poll shortcut
/// answers a poll itself), so a request is counted once its answer or failure is known;
/// requests still in flight when the run stopped are in `requests`, not here.
///
/// Bounded memory: a histogram per endpoint and status seen, two per-second counters per
/// endpoint, and one `LatencyOverTime`.
package struct RequestStatistics: Sendable {
    struct Cell: Sendable {
        var status: Status
        /// Answer times in milliseconds, from the request's send to its answer.
        var latency: Histogram<UInt64>
        /// Answers with this status per second of the run (metrics.prom's `requests_total`).
        var perSecond = PerSecondCounts()
    }

    /// Per endpoint, the statuses seen in the order first seen: a handful each, so a scan beats
    /// hashing on the hot path.
    private(set) var cells: [[Cell]] = Array(repeating: [], count: Endpoint.allCases.count)
    /// Answers per second of the run: OK at `2 × endpoint`, KO at `2 × endpoint + 1`.
    private(set) var perSecond = Array(repeating: PerSecondCounts(), count: 2 * Endpoint.allCases.count)
    /// The queue page's answer times by the second they came (a scripted slowdown shows here).
    private(set) var queuePageLatency = LatencyOverTime()
    /// Per endpoint, answers per second in each of `latencyBoundsMs`'s buckets (one more for
    /// `+Inf`) and the sum of their times: metrics.prom's `request_duration_seconds`.
    private(set) var latencyBuckets = Array(
        repeating: Array(repeating: PerSecondCounts(), count: RequestStatistics.latencyBoundsMs.count + 1),
        count: Endpoint.allCases.count)
    private(set) var latencySumMs = Array(repeating: PerSecondCounts(), count: Endpoint.allCases.count)
    /// The same buckets over the whole run so far, for a live `/metrics` (`totals`).
    private var latencyBucketTotals = Array(
        repeating: Array(repeating: UInt64(0), count: RequestStatistics.latencyBoundsMs.count + 1),
        count: Endpoint.allCases.count)
    private var latencySumTotalMs = Array(repeating: UInt64(0), count: Endpoint.allCases.count)
    /// The poll shortcut's answers, per second, by class (endpoint, status and time): added to
    /// the per-second figures by `foldDeferredAnswers`, which `Recorder.recordAnswers` calls.
    /// A forecast chain answers polls seconds ahead of the clock, and each answer went to five
    /// per-second arrays, a cache miss each; now it goes to one. Totals count at once.
    private var deferredAnswers: [DeferredAnswers] = []
    private var lastDeferred = 0

    private struct DeferredAnswers: Sendable {
        var endpoint: Endpoint
        var cell: Int
        var isOK: Bool
        var milliseconds: UInt64
        var perSecond = PerSecondCounts()
    }
    /// `CountingBuckets.requests` in whole milliseconds.
    static let latencyBoundsMs: [UInt64] = CountingBuckets.requests.map { UInt64(($0 * 1000).rounded()) }

    package init() {}

    /// `count` answers of `endpoint` with `status`, each `milliseconds` after its request, that
    /// came in second `second` of the run.
    mutating func answered(
        _ endpoint: Endpoint, status: Status, milliseconds: UInt64, inSecond second: Int, count: Int = 1
    ) {
        let index = cellIndex(endpoint, status)
        _ = cells[endpoint.rawValue][index].latency.record(milliseconds, count: UInt64(count))
        countLatencyTotals(endpoint, milliseconds: milliseconds, count: count)
        countPerSecond(
            endpoint, cell: index, isOK: status.isOK, milliseconds: milliseconds, inSecond: second, count: count)
    }

    /// Everything `answered` counts per second.
    private mutating func countPerSecond(
        _ endpoint: Endpoint, cell: Int, isOK: Bool, milliseconds: UInt64, inSecond second: Int, count: Int
    ) {
        cells[endpoint.rawValue][cell].perSecond.add(at: second, count)
        latencyBuckets[endpoint.rawValue][Self.latencyBucket(of: milliseconds)].add(at: second, count)
        latencySumMs[endpoint.rawValue].add(at: second, Int(clamping: milliseconds) * count)
        perSecond[2 * endpoint.rawValue + (isOK ? 0 : 1)].add(at: second, count)
        if endpoint == .queuePage {
            queuePageLatency.record(milliseconds, inSecond: second, count: UInt32(clamping: count))
        }
    }

    private static func latencyBucket(of milliseconds: UInt64) -> Int {
        var bucket = 0
        while bucket < latencyBoundsMs.count, milliseconds > latencyBoundsMs[bucket] { bucket += 1 }
        return bucket
    }

    private mutating func countLatencyTotals(_ endpoint: Endpoint, milliseconds: UInt64, count: Int) {
        latencyBucketTotals[endpoint.rawValue][Self.latencyBucket(of: milliseconds)] &+= UInt64(count)
        latencySumTotalMs[endpoint.rawValue] &+= milliseconds &* UInt64(count)
    }

    /// The answers so far, by endpoint and status, and their times in `MetricCatalog`'s buckets:
    /// what a live `/metrics` shows (a few small arrays, copied a few times a second).
    var totals: RequestTotals {
        var totals = RequestTotals()
        for endpoint in Endpoint.allCases {
            totals.statuses[endpoint.rawValue] = cells[endpoint.rawValue].map {
                RequestTotals.StatusCount(status: $0.status, count: Int($0.latency.totalCount))
            }
            for (bucket, count) in latencyBucketTotals[endpoint.rawValue].enumerated() where count > 0 {
                let seconds =
                    bucket < CountingBuckets.requests.count ? CountingBuckets.requests[bucket] : .infinity
                totals.durations[endpoint.rawValue].add(count, toBucketOf: seconds)
            }
            totals.durations[endpoint.rawValue].addToSum(milliseconds: Int64(latencySumTotalMs[endpoint.rawValue]))
        }
        return totals
    }

    /// Counts the answers of `count` polls without their per-second figures (the poll
    /// shortcut records those one poll at a time, and the histogram once for the chain).
    mutating func answeredLatencyOnly(_ endpoint: Endpoint, status: Status, milliseconds: UInt64, count: Int) {
        let index = cellIndex(endpoint, status)
        _ = cells[endpoint.rawValue][index].latency.record(milliseconds, count: UInt64(count))
    }

    /// One answer's per-second figures (the poll shortcut's, whose histogram is counted in bulk).
    /// Its per-second figures wait in `deferredAnswers` until `foldDeferredAnswers`.
    mutating func answeredInSecond(_ endpoint: Endpoint, status: Status, milliseconds: UInt64, second: Int) {
        countLatencyTotals(endpoint, milliseconds: milliseconds, count: 1)
        answeredInSecond(deferredSlot(endpoint, status: status, milliseconds: milliseconds), second: second)
    }

    /// The same per-second figure for an answer of the kind `slot` names (`deferredSlot`), whose
    /// latency totals the caller counts (`answeredLatencyTotals`): a chain of forecast polls of
    /// one latency looks its slot up once.
    mutating func answeredInSecond(_ slot: Int, second: Int) {
        deferredAnswers[slot].perSecond.add(at: second)
    }

    /// `count` answers of the kind `slot` names, at `first + k × period` (whole nanoseconds from
    /// the origin): the answers of a chain of forecast polls of one latency, in bulk.
    mutating func answered(_ slot: Int, firstNanoseconds first: Int64, periodNanoseconds period: Int64, count: Int) {
        deferredAnswers[slot].perSecond.addProgression(firstNanoseconds: first, periodNanoseconds: period, count: count)
    }

    /// Adds `count` answers of `milliseconds` to the live latency totals (`totals`).
    mutating func answeredLatencyTotals(_ endpoint: Endpoint, milliseconds: UInt64, count: Int) {
        countLatencyTotals(endpoint, milliseconds: milliseconds, count: count)
    }

    /// Where answers of `endpoint`, `status` and `milliseconds` wait for `foldDeferredAnswers`.
    mutating func deferredSlot(_ endpoint: Endpoint, status: Status, milliseconds: UInt64) -> Int {
        var index = lastDeferred
        if index >= deferredAnswers.count || deferredAnswers[index].endpoint != endpoint
            || deferredAnswers[index].milliseconds != milliseconds
            || cells[endpoint.rawValue][deferredAnswers[index].cell].status != status
        {
            // The cell is made now, so statuses keep the order they were first seen in.
            let cell = cellIndex(endpoint, status)
            if let known = deferredAnswers.firstIndex(where: {
                $0.endpoint == endpoint && $0.cell == cell && $0.milliseconds == milliseconds
            }) {
                index = known
            } else {
                index = deferredAnswers.count
                deferredAnswers.append(
                    DeferredAnswers(endpoint: endpoint, cell: cell, isOK: status.isOK, milliseconds: milliseconds))
            }
            lastDeferred = index
        }
        return index
    }

    /// Adds the answers `answeredInSecond` kept back to the per-second figures. Sums, so the
    /// figures are the same as if each had been added when it was counted.
    mutating func foldDeferredAnswers() {
        for deferred in deferredAnswers {
            for (second, count) in deferred.perSecond.nonZero {
                countPerSecond(
                    deferred.endpoint, cell: deferred.cell, isOK: deferred.isOK, milliseconds: deferred.milliseconds,
                    inSecond: second, count: count)
            }
        }
        deferredAnswers = []
        lastDeferred = 0
    }

    private mutating func cellIndex(_ endpoint: Endpoint, _ status: Status) -> Int {
        if let index = cells[endpoint.rawValue].firstIndex(where: { $0.status == status }) { return index }
        cells[endpoint.rawValue].append(Cell(status: status, latency: TimingHistogram.make()))
        return cells[endpoint.rawValue].count - 1
    }

    /// Adds a histogram of answers (a shard's, read back from `shard.json`).
    mutating func add(_ endpoint: Endpoint, status: Status, latency: Histogram<UInt64>) {
        cells[endpoint.rawValue][cellIndex(endpoint, status)].latency.add(latency)
    }

    /// Adds answers to a per-second column (`perSecond`'s order).
    mutating func addAnswers(_ count: Int, column: Int, inSecond second: Int) {
        perSecond[column].add(at: second, count)
    }

    mutating func addQueuePageLatency(_ latency: LatencyOverTime) {
        queuePageLatency.merge(latency)
    }

    /// Adds another engine's statistics (a wall-clock run has one per event loop).
    mutating func merge(_ other: RequestStatistics) {
        var other = other
        other.foldDeferredAnswers()
        for endpoint in Endpoint.allCases {
            for cell in other.cells[endpoint.rawValue] {
                let index = cellIndex(endpoint, cell.status)
                cells[endpoint.rawValue][index].latency.add(cell.latency)
                for (second, count) in cell.perSecond.nonZero {
                    cells[endpoint.rawValue][index].perSecond.add(at: second, count)
                }
            }
            for bucket in latencyBuckets[endpoint.rawValue].indices {
                for (second, count) in other.latencyBuckets[endpoint.rawValue][bucket].nonZero {
                    latencyBuckets[endpoint.rawValue][bucket].add(at: second, count)
                }
            }
            for (second, sum) in other.latencySumMs[endpoint.rawValue].nonZero {
                latencySumMs[endpoint.rawValue].add(at: second, sum)
            }
        }
        for index in perSecond.indices {
            for (second, count) in other.perSecond[index].nonZero { perSecond[index].add(at: second, count) }
        }
        queuePageLatency.merge(other.queuePageLatency)
    }
}
