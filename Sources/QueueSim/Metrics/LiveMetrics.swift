import QueueClientCore

/// What `/metrics` shows while a wall-clock run goes on (`run --metrics-listen`) and what
/// `--metrics-push` sends every 5 s: the run's counters as its event loops last published them
/// (`RunProgress`, a few times a second), the same families and label order as `metrics.prom`,
/// so a dashboard reads a live run and a finished one alike. With the embedded room, its queue
/// length and releases too (`RunProgress.attachRoom`).
package final class LiveMetrics: Sendable {
    package let identity: MetricsSnapshot.Identity
    private let groupNames: [String]
    private let progress: RunProgress
    private let clock: any RunClock

    package init(identity: MetricsSnapshot.Identity, groupNames: [String], progress: RunProgress, clock: any RunClock) {
        self.identity = identity
        self.groupNames = groupNames
        self.progress = progress
        self.clock = clock
    }

    /// The current values of every series.
    package func snapshot() -> MetricsSnapshot {
        Self.snapshot(
            progress.snapshot(at: clock.now), identity: identity, groupNames: groupNames, room: progress.roomFigures())
    }

    /// Prometheus text for a scrape.
    package func render() -> String {
        MetricsExposition.prometheus(snapshot())
    }

    /// The series of a progress snapshot, in `metrics.prom`'s order: per group arrivals,
    /// finished visitors by outcome, the queue and waits; then in flight, requests, their
    /// times, the generator's health and the room.
    static func snapshot(
        _ progress: RunProgress.Snapshot, identity: MetricsSnapshot.Identity, groupNames: [String],
        room: RunProgress.RoomFigures?
    ) -> MetricsSnapshot {
        var snapshot = MetricsSnapshot(identity: identity)
        let outcomes = VisitorOutcome.allCases
        for (index, name) in groupNames.enumerated() {
            let counts = index < progress.groups.count ? progress.groups[index] : RunProgress.GroupCounts()
            snapshot.set(MetricCatalog.arrivals, [name], Double(counts.arrived))
            for (outcomeIndex, outcome) in outcomes.enumerated() where counts.finished[outcomeIndex] > 0 {
                snapshot.set(MetricCatalog.visitors, [name, outcome.rawValue], Double(counts.finished[outcomeIndex]))
            }
            snapshot.set(MetricCatalog.inQueue, [name], Double(counts.inQueue))
            snapshot.set(MetricCatalog.wait, [name], histogram: counts.wait)
        }
        snapshot.set(MetricCatalog.inFlight, [], Double(max(0, progress.started - progress.finished)))
        for endpoint in RequestStatistics.Endpoint.allCases {
            for entry in progress.answers.statuses[endpoint.rawValue] where entry.count > 0 {
                snapshot.set(
                    MetricCatalog.requests, [endpoint.metricLabel, entry.status.metricLabel], Double(entry.count))
            }
            let durations = progress.answers.durations[endpoint.rawValue]
            if durations.count > 0 {
                snapshot.set(MetricCatalog.requestDuration, [endpoint.metricLabel], histogram: durations)
            }
        }
        snapshot.set(MetricCatalog.generatorLag, [], Self.seconds(progress.loopLag))
        snapshot.set(MetricCatalog.generatorSaturated, [], Double(progress.saturatedSeconds))
        if let room {
            snapshot.set(MetricCatalog.roomQueueLength, [], Double(room.queueLength))
            snapshot.set(MetricCatalog.roomReleased, [], Double(room.released))
        }
        return snapshot
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
