import Foundation

/// The real event's series as the run's own metrics (`compare --real … --real-metrics FILE`):
/// OpenMetrics text, like metrics.prom, under the run's metric names and identity labels plus
/// `source="real"`, stamped on the run's clock, so one Grafana panel draws both (docs/metrics.md,
/// "The real event beside the run").
package enum RealMetrics {
    /// A stats.csv column and the run's metric that counts the same thing.
    package struct Mapping: Sendable {
        package var column: String
        package var family: MetricCatalog.Family
        /// A counter: the column's minutes summed from the run's second 0.
        package var cumulative: Bool
    }

    package static let mappings = [
        Mapping(column: "queueinflow", family: MetricCatalog.arrivals, cumulative: true),
        Mapping(column: "queueoutflow", family: MetricCatalog.roomReleased, cumulative: true),
        Mapping(column: "queueidsinqueue", family: MetricCatalog.roomQueueLength, cumulative: false),
    ]

    /// What stamps and labels the samples: the run's folder as run.json describes it.
    package struct RunClock: Sendable, Equatable {
        package var runId: String
        package var scenario: String
        /// metrics.prom's base: second s of the run is stamped `timestampBase + s + 1`.
        package var timestampBase: Int64

        /// From run.json's `run_id`, `scenario`, `ended_at` and `duration_ms`, as metrics.prom
        /// stamps the run (`MetricsFile`); nil when run.json lacks one of them.
        package init?(folder: String) {
            let path = Recorder.path(folder, Recorder.manifestFile)
            guard let data = FileManager.default.contents(atPath: path),
                let manifest = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                let runId = manifest["run_id"] as? String, let scenario = manifest["scenario"] as? String,
                let endedText = manifest["ended_at"] as? String, let duration = manifest["duration_ms"] as? Int
            else { return nil }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let ended = formatter.date(from: endedText) ?? ISO8601DateFormatter().date(from: endedText) else {
                return nil
            }
            self.runId = runId
            self.scenario = scenario
            timestampBase = Int64(ended.timeIntervalSince1970.rounded(.down)) - Int64(max(0, duration) / 1000 + 1)
        }

        package init(runId: String, scenario: String, timestampBase: Int64) {
            (self.runId, self.scenario, self.timestampBase) = (runId, scenario, timestampBase)
        }
    }

    /// The file: a sample a minute from the run's second 0 (`offsetMinutes` into the real
    /// file) to the file's last, each the minute's value at its end — run minute m stamped as
    /// metrics.prom stamps the run's second 60m + 59. A minute without a value is left out
    /// (a counter carries its sum on).
    package static func openMetrics(real: RealStats, offsetMinutes: Int, clock: RunClock) -> String {
        let names = MetricCatalog.commonLabels + ["source"]
        let labels = MetricsExposition.labelList(names, [clock.runId, clock.scenario, "0/1", "real"])
        var text = ""
        for mapping in mappings {
            guard let values = real.series[mapping.column] else { continue }
            text += MetricsExposition.openMetricsHeader(mapping.family)
            var total = 0.0
            for realMinute in offsetMinutes..<real.count {
                guard let value = values[realMinute] else { continue }
                total += value
                let runMinute = Int64(realMinute - offsetMinutes)
                let stamp = clock.timestampBase + runMinute * 60 + 60
                let sample = MetricsExposition.number(mapping.cumulative ? total : value)
                text += "\(mapping.family.name){\(labels)} \(sample) \(stamp)\n"
            }
        }
        return text + "# EOF\n"
    }
}
