/// The values of every exported series at one instant: what a scrape of `/metrics` returns and
/// what `metrics.prom` holds for each second. Built by whoever owns the numbers (the run's
/// recorder, the room), rendered by `MetricsExposition`.
package struct MetricsSnapshot: Sendable, Equatable {
    /// The labels every series carries, so shards of one run sum and runs stay apart.
    package struct Identity: Sendable, Equatable {
        package var runId: String
        package var scenario: String
        /// `K/N` for a shard of a sharded run, `0/1` for a whole run.
        package var shard: String

        package init(runId: String, scenario: String, shard: String) {
            self.runId = runId
            self.scenario = scenario
            self.shard = shard
        }

        var labelValues: [String] { [runId, scenario, shard] }
    }

    package enum Value: Sendable, Equatable {
        case number(Double)
        case histogram(BucketCounts)
    }

    package struct Series: Sendable, Equatable {
        /// In the order of the family's `labels`.
        package var labels: [String]
        package var value: Value
    }

    package var identity: Identity
    /// By family name; series in the order they were set (callers set them in a stable order,
    /// so a snapshot renders to the same bytes every time).
    package private(set) var series: [String: [Series]] = [:]

    package init(identity: Identity) {
        self.identity = identity
    }

    package mutating func set(_ family: MetricCatalog.Family, _ labels: [String] = [], _ value: Double) {
        set(family, labels, .number(value))
    }

    package mutating func set(_ family: MetricCatalog.Family, _ labels: [String] = [], histogram: BucketCounts) {
        set(family, labels, .histogram(histogram))
    }

    private mutating func set(_ family: MetricCatalog.Family, _ labels: [String], _ value: Value) {
        precondition(labels.count == family.labels.count, "\(family.name) takes labels \(family.labels)")
        // In place: a copy out of the dictionary would copy the family's list on every set.
        if let index = series[family.name]?.firstIndex(where: { $0.labels == labels }) {
            series[family.name]![index].value = value
        } else {
            series[family.name, default: []].append(Series(labels: labels, value: value))
        }
    }

    /// Sets a series the snapshot does not have yet, without looking for it: for a caller that
    /// sets each series once (`RunMetricsSeries`, whose 2,000 groups made `set`'s search of the
    /// family's list quadratic). Setting one twice would list it twice.
    package mutating func setNew(_ family: MetricCatalog.Family, _ labels: [String] = [], _ value: Double) {
        precondition(labels.count == family.labels.count, "\(family.name) takes labels \(family.labels)")
        series[family.name, default: []].append(Series(labels: labels, value: .number(value)))
    }

    package mutating func setNew(_ family: MetricCatalog.Family, _ labels: [String] = [], histogram: BucketCounts) {
        precondition(labels.count == family.labels.count, "\(family.name) takes labels \(family.labels)")
        series[family.name, default: []].append(Series(labels: labels, value: .histogram(histogram)))
    }

    package func value(_ family: MetricCatalog.Family, _ labels: [String] = []) -> Value? {
        series[family.name]?.first { $0.labels == labels }?.value
    }
}
