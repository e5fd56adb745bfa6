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
        try render(
            series, run: run, ending: ending, answers: answers, room: room, generatorLag: generatorLag,
            emitBytes: { try emit(String(decoding: $0, as: UTF8.self)) })
    }

    /// The text in pieces of UTF-8, straight from the buffers it is built in: a file of 2,000
    /// groups is 22.5 MB, and making each piece a `String` and its bytes again an array copied
    /// it twice (issue 51).
    static func render(
        _ series: RunMetricsSeries, run: RunDescription, ending: RunEnding, answers: RequestStatistics,
        room: RoomSeries? = nil, generatorLag: [Duration]? = nil, emitBytes: (UnsafeBufferPointer<UInt8>) throws -> Void
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
            saturated: saturated, room: room, generatorLag: generatorLag, emitBytes: emitBytes)
    }

    /// The file for `seconds` seconds of the run, second `s` stamped `timestampBase + s + 1`.
    static func write(
        _ series: RunMetricsSeries, seconds: Int, timestampBase: Int64, identity: MetricsSnapshot.Identity,
        answers: RequestStatistics, saturated: Set<Int> = [], room: RoomSeries? = nil, generatorLag: [Duration]? = nil,
        emit: (String) throws -> Void
    ) rethrows {
        try write(
            series, seconds: seconds, timestampBase: timestampBase, identity: identity, answers: answers,
            saturated: saturated, room: room, generatorLag: generatorLag,
            emitBytes: { try emit(String(decoding: $0, as: UTF8.self)) })
    }

    static func write(
        _ series: RunMetricsSeries, seconds: Int, timestampBase: Int64, identity: MetricsSnapshot.Identity,
        answers: RequestStatistics, saturated: Set<Int> = [], room: RoomSeries? = nil, generatorLag: [Duration]? = nil,
        emitBytes: (UnsafeBufferPointer<UInt8>) throws -> Void
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
                if !text.isEmpty { try text.withUTF8 { try emitBytes($0) } }
                text = ""
                try groups.write(family, to: &groupText, emit: emitBytes)
                try groupText.flush(emitBytes)
            } else {
                try MetricsExposition.appendFamily(family, of: snapshots, to: &text) { piece in
                    var piece = piece
                    try piece.withUTF8 { try emitBytes($0) }
                }
            }
        }
        text += "# EOF\n"
        try text.withUTF8 { try emitBytes($0) }
    }
}
