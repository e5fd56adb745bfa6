/// Every metric queuesim exports (docs/metrics.md): the names are a promise to dashboards and
/// alerts — extend, never rename. Histograms are histograms (buckets that sum across shards),
/// never percentile gauges, which cannot be added up.
package enum MetricCatalog {
    package enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    package struct Family: Sendable, Equatable {
        /// The sample name: counters end in `_total`, as Prometheus expects.
        package var name: String
        package var kind: Kind
        package var help: String
        /// Labels besides `run_id`, `scenario` and `shard`, which every series carries.
        package var labels: [String]
        /// Seconds, for histograms.
        package var buckets: [Double] = []

    }

    /// The labels on every series, so shards of one run sum correctly and runs stay apart.
    package static let commonLabels = ["run_id", "scenario", "shard"]

    /// Answer times (`CountingBuckets.requests`: the engine counts in these).
    package static let requestBuckets = CountingBuckets.requests
    /// Waits in the queue (`CountingBuckets.waits`).
    package static let waitBuckets = CountingBuckets.waits

    package static let arrivals = Family(
        name: "queuesim_arrivals_total", kind: .counter, help: "Visitors who arrived (started their journey).",
        labels: ["group"])
    package static let visitors = Family(
        name: "queuesim_visitors_total", kind: .counter,
        help: "Visitors who finished, by outcome (the outcome column of visitors.csv).", labels: ["group", "outcome"])
    package static let inQueue = Family(
        name: "queuesim_in_queue", kind: .gauge, help: "Visitors on the queue page now.", labels: ["group"])
    package static let inFlight = Family(
        name: "queuesim_in_flight", kind: .gauge, help: "Visitors arrived and not yet finished.", labels: [])
    package static let requests = Family(
        name: "queuesim_requests_total", kind: .counter,
        help: "Answers and failures by endpoint (enqueue, queue_page, protected_api) and HTTP status, or error.",
        labels: ["endpoint", "status"])
    package static let requestDuration = Family(
        name: "queuesim_request_duration_seconds", kind: .histogram,
        help: "Time from sending a request to its answer, by endpoint.", labels: ["endpoint"], buckets: requestBuckets)
    package static let wait = Family(
        name: "queuesim_wait_seconds", kind: .histogram, help: "Time finished visitors spent on the queue page.",
        labels: ["group"], buckets: waitBuckets)
    package static let generatorLag = Family(
        name: "queuesim_generator_lag_seconds", kind: .gauge,
        help: "How late the generator's event loops run behind their schedule (wall clock; 0 on the virtual clock).",
        labels: [])
    package static let generatorSaturated = Family(
        name: "queuesim_generator_saturated_seconds_total", kind: .counter,
        help: "Seconds in which the generator could not keep its schedule.", labels: [])
    package static let roomQueueLength = Family(
        name: "queuesim_room_queue_length", kind: .gauge,
        help: "The embedded room's queue: visitors given a queue number and not yet released.", labels: [])
    package static let roomReleased = Family(
        name: "queuesim_room_released_total", kind: .counter,
        help: "Visitors the embedded room let through (queue numbers released by its outflow).", labels: [])

    /// In the order the exposition writes them.
    package static let families: [Family] = [
        arrivals, visitors, inQueue, inFlight, requests, requestDuration, wait, generatorLag, generatorSaturated,
        roomQueueLength, roomReleased,
    ]

    /// Every sample name a query may use: counters and gauges by name, histograms with their
    /// `_bucket`, `_sum` and `_count` series.
    package static var sampleNames: Set<String> {
        var names: Set<String> = []
        for family in families {
            if family.kind == .histogram {
                names.formUnion([family.name + "_bucket", family.name + "_sum", family.name + "_count"])
            } else {
                names.insert(family.name)
            }
        }
        return names
    }
}
