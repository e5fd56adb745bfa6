import Foundation

/// `metrics.prom`: the run's series in OpenMetrics, for `promtool tsdb create-blocks-from
/// openmetrics metrics.prom DIR` (docs/metrics.md): a run-wide series has a sample every
/// second; a group's series one at every second its value changes, the second before, and at
/// least every 15 s (`SampleSchedule`), which loses no value.
///
/// Each sample is the value at the end of its second. Timestamps: second s of the run is
/// `endedAt − duration + s + 1` in Unix seconds — the wall clock's own instants on a wall-clock
/// run; on the virtual clock the simulated run is laid so that it ends when the run ended, so
/// an hour simulated in a minute lands in the last hour before the run finished.
enum MetricsFile {
    /// The text in pieces (`MetricsExposition.openMetrics(_:emit:)`), written as it goes.
    static func render(
        _ series: RunMetricsSeries, run: RunDescription, ending: RunEnding, answers: RequestStatistics,
        room: RoomSeries? = nil, generatorLag: [Duration]? = nil, emit: (String) throws -> Void
    ) rethrows {
        // Seconds 0 through the one the run ended in: a visitor who ends at the very end (a
        // whole number of seconds, such as a hard stop or a `maxWait` of the last arrivals)
        // is counted in that second, as timeline.csv counts it.
        let durationSeconds = max(0, ending.end.milliseconds) / 1000 + 1
        let base = Int64(ending.endedAt.timeIntervalSince1970.rounded(.down)) - Int64(durationSeconds)
        let shard = run.shard.map { "\($0.shard.index)/\($0.shard.count)" } ?? "0/1"
        let identity = MetricsSnapshot.Identity(runId: run.runId, scenario: run.scenarioName, shard: shard)
        var saturated: Set<Int> = []
        for window in ending.generator?.saturatedWindows ?? [] {
            for second in window.fromSecond..<max(window.fromSecond, window.toSecond) { saturated.insert(second) }
        }
        try write(
            series, seconds: Int(durationSeconds), timestampBase: base, identity: identity, answers: answers,
            saturated: saturated, room: room, generatorLag: generatorLag, emit: emit)
    }

    /// The file for `seconds` seconds of the run, second `s` stamped `timestampBase + s + 1`.
    static func write(
        _ series: RunMetricsSeries, seconds: Int, timestampBase: Int64, identity: MetricsSnapshot.Identity,
        answers: RequestStatistics, saturated: Set<Int> = [], room: RoomSeries? = nil, generatorLag: [Duration]? = nil,
        emit: (String) throws -> Void
    ) rethrows {
        // The run-wide series from a snapshot per second; the groups' written group by group,
        // which is the same text at the cost of their samples rather than groups × seconds.
        let snapshots = series.snapshots(
            seconds: seconds, identity: identity, answers: answers, saturated: saturated, room: room,
            generatorLag: generatorLag, groupSeries: false
        ).enumerated().map { (seconds: timestampBase + Int64($0.offset) + 1, snapshot: $0.element) }
        let groups = MetricsFileGroups(series, seconds: seconds, identity: identity, timestampBase: timestampBase)
        var text = ""
        var groupText = MetricsText()
        for family in MetricCatalog.families {
            if MetricsFileGroups.writes(family) {
                if !text.isEmpty { try emit(text) }
                text = ""
                try groups.write(family, to: &groupText, emit: emit)
                try groupText.flush(emit)
            } else {
                try MetricsExposition.appendFamily(family, of: snapshots, to: &text, emit: emit)
            }
        }
        try emit(text + "# EOF\n")
    }
}
