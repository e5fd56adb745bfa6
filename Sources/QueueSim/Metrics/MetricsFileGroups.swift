import QueueClientCore

/// metrics.prom's per-group families (`queuesim_arrivals_total`, `queuesim_visitors_total`,
/// `queuesim_in_queue`, `queuesim_wait_seconds`), written group by group from each group's
/// changes: the same bytes `MetricsExposition` writes from a snapshot per second
/// (`SparseGroupSeriesTests` compares them), at the cost of the samples written.
///
/// Why: going through snapshots cost groups × seconds (every group was looked at in every
/// second's snapshot, and each sample found again by its labels), and a scenario of 2,000
/// small groups spent a fifth of its run there (issue 51).
struct MetricsFileGroups {
    static let families = [MetricCatalog.arrivals, MetricCatalog.visitors, MetricCatalog.inQueue, MetricCatalog.wait]

    private let groups: [(name: String, changes: RunMetricsSeries.GroupChanges?)]
    private let seconds: Int
    /// `run_id="…",scenario="…",shard="…"`: the labels every series starts with.
    private let identityLabels: String
    /// Second `s` of the run is written as Unix second `timestampBase + s + 1`.
    private let timestampBase: Int64

    init(_ series: RunMetricsSeries, seconds: Int, identity: MetricsSnapshot.Identity, timestampBase: Int64) {
        groups = series.groupChanges
        self.seconds = seconds
        identityLabels = MetricsExposition.labelList(MetricCatalog.commonLabels, identity.labelValues)
        self.timestampBase = timestampBase
    }

    static func writes(_ family: MetricCatalog.Family) -> Bool { families.contains { $0.name == family.name } }

    /// The family's lines, `# TYPE` and `# HELP` first; nothing when it has no sample.
    func write(
        _ family: MetricCatalog.Family, to out: inout MetricsText, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        switch family.name {
        case MetricCatalog.visitors.name: try writeVisitors(to: &out, emit: emit)
        case MetricCatalog.wait.name: try writeWaits(to: &out, emit: emit)
        case MetricCatalog.arrivals.name: try writeCounts(family, of: \.arrivals, to: &out, emit: emit)
        default: try writeCounts(family, of: \.inQueue, to: &out, emit: emit)
        }
    }

    /// A series' labels in braces: the identity's, the group's and `more` (already escaped).
    private func labels(group: String, _ more: String = "") -> String {
        "{" + identityLabels + "," + MetricsExposition.labelList(["group"], [group]) + more + "}"
    }

    private func header(_ family: MetricCatalog.Family, to out: inout MetricsText) {
        out.append(MetricsExposition.openMetricsHeader(family))
    }

    /// The running total of `changes` at each of `samples` (both ascending).
    private static func totals(_ changes: [(second: Int, count: Int)], at samples: [Int]) -> [Int] {
        var total = 0
        var next = 0
        return samples.map { second in
            while next < changes.count, changes[next].second <= second {
                total += changes[next].count
                next += 1
            }
            return total
        }
    }

    /// A family of one plain series per group (arrivals, the queue), every group from second 0.
    private func writeCounts(
        _ family: MetricCatalog.Family, of list: KeyPath<RunMetricsSeries.GroupChanges, [(second: Int, count: Int)]>,
        to out: inout MetricsText, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        guard seconds > 0, !groups.isEmpty else { return }
        header(family, to: &out)
        for (name, changes) in groups {
            let changes = changes?[keyPath: list] ?? []
            let samples = SampleSchedule.sampledSeconds(changes: changes.map(\.second), seconds: seconds)
            let start = Array((family.name + labels(group: name) + " ").utf8)
            for (second, total) in zip(samples, Self.totals(changes, at: samples)) {
                out.line(start, total, timestamp: timestampBase + Int64(second) + 1)
            }
            try out.flushIfFull(emit)
        }
    }
}

extension MetricsFileGroups {
    /// `queuesim_visitors_total{group, outcome}`: a series from the first sample of its group's
    /// outcomes at which it is above zero, series in that order (then group, then outcome), as
    /// a snapshot per second lists them.
    private func writeVisitors(to out: inout MetricsText, emit: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        struct Series {
            var group: Int
            var outcome: Int
            /// Where in the group's samples the series starts.
            var first: Int
            var firstSecond: Int
        }
        var samplesByGroup: [[Int]] = Array(repeating: [], count: groups.count)
        var series: [Series] = []
        for (group, (_, changes)) in groups.enumerated() {
            guard let finished = changes?.finished, finished.contains(where: { !$0.isEmpty }) else { continue }
            let samples = SampleSchedule.sampledSeconds(changes: Self.seconds(of: finished), seconds: seconds)
            samplesByGroup[group] = samples
            for (outcome, counts) in finished.enumerated() {
                guard let firstCount = counts.first?.second,
                    let first = samples.firstIndex(where: { $0 >= firstCount })
                else { continue }
                series.append(Series(group: group, outcome: outcome, first: first, firstSecond: samples[first]))
            }
        }
        guard !series.isEmpty else { return }
        series.sort { ($0.firstSecond, $0.group, $0.outcome) < ($1.firstSecond, $1.group, $1.outcome) }
        header(MetricCatalog.visitors, to: &out)
        let outcomes = VisitorOutcome.allCases
        for one in series {
            let samples = Array(samplesByGroup[one.group][one.first...])
            let outcome = MetricsExposition.labelList(["outcome"], [outcomes[one.outcome].rawValue])
            let start = Array(
                (MetricCatalog.visitors.name + labels(group: groups[one.group].name, "," + outcome) + " ").utf8)
            let counts = groups[one.group].changes!.finished[one.outcome]
            for (second, total) in zip(samples, Self.totals(counts, at: samples)) {
                out.line(start, total, timestamp: timestampBase + Int64(second) + 1)
            }
            try out.flushIfFull(emit)
        }
    }

    /// `queuesim_wait_seconds{group}`: each sample's cumulative buckets, count and sum.
    private func writeWaits(to out: inout MetricsText, emit: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard seconds > 0, !groups.isEmpty else { return }
        let family = MetricCatalog.wait
        header(family, to: &out)
        // A line is the name's head, the series' labels and a tail: only the labels are the
        // group's, so nothing else is made per group.
        let bucketHead = Array((family.name + "_bucket{").utf8)
        let countHead = Array((family.name + "_count{").utf8)
        let sumHead = Array((family.name + "_sum{").utf8)
        let bucketTails = (MetricCatalog.waitBuckets.map(MetricsExposition.number) + ["+Inf"]).map {
            Array((",le=\"" + $0 + "\"} ").utf8)
        }
        let plainTail = Array("} ".utf8)
        let noBuckets = Array(repeating: [(second: Int, count: Int)](), count: bucketTails.count)
        // Per bucket: how far its changes are read and its running count. Kept across groups
        // (reset for each): a group costs its samples, not arrays of its own.
        var read = Array(repeating: 0, count: bucketTails.count)
        var running = Array(repeating: 0, count: bucketTails.count)
        for group in groups.indices {
            let changes = groups[group].changes
            let labels = Array(
                (identityLabels + "," + MetricsExposition.labelList(["group"], [groups[group].name])).utf8)
            let buckets = changes?.waitBuckets ?? noBuckets
            let samples = SampleSchedule.sampledSeconds(changes: Self.seconds(of: buckets), seconds: seconds)
            let sums = Self.totals(changes?.waitSumMs ?? [], at: samples)
            for bucket in read.indices {
                read[bucket] = 0
                running[bucket] = 0
            }
            var sumText: (milliseconds: Int, text: [UInt8])?
            for (index, second) in samples.enumerated() {
                let timestamp = timestampBase + Int64(second) + 1
                var cumulative = 0
                for bucket in buckets.indices {
                    // Read in place (`buckets[bucket][…]`): a copy of the bucket's list per
                    // sample was a retain and a release per line, a sixth of this file's time.
                    while read[bucket] < buckets[bucket].count, buckets[bucket][read[bucket]].second <= second {
                        running[bucket] += buckets[bucket][read[bucket]].count
                        read[bucket] += 1
                    }
                    cumulative += running[bucket]
                    out.line(bucketHead, labels, bucketTails[bucket], cumulative, timestamp: timestamp)
                }
                out.line(countHead, labels, plainTail, cumulative, timestamp: timestamp)
                if sumText?.milliseconds != sums[index] {
                    sumText = (sums[index], Array(MetricsExposition.number(Double(sums[index]) / 1000).utf8))
                }
                out.line(sumHead, labels, plainTail, sumText!.text, timestamp: timestamp)
            }
            try out.flushIfFull(emit)
        }
    }

    /// The seconds any of `lists` (each ascending) has a count in, ascending, no repeats: sorted
    /// rather than hashed, since a group's lists are short.
    static func seconds(of lists: [[(second: Int, count: Int)]]) -> [Int] {
        var seconds: [Int] = []
        for list in lists { seconds.append(contentsOf: list.lazy.map(\.second)) }
        guard seconds.count > 1 else { return seconds }
        seconds.sort()
        var kept = 1
        for index in 1..<seconds.count where seconds[index] != seconds[kept - 1] {
            seconds[kept] = seconds[index]
            kept += 1
        }
        seconds.removeLast(seconds.count - kept)
        return seconds
    }
}
