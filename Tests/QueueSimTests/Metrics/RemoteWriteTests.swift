import Foundation
import StandInServers
import Testing

@testable import QueueSim

@Suite("Metrics: remote write")
struct RemoteWriteTests {
    @Test func theProtobufIsTheWriteRequestByteForByte() {
        let series = [
            RemoteWriteRequest.TimeSeries(
                labels: [(name: "__name__", value: "a"), (name: "b", value: "c")],
                samples: [(value: 1, milliseconds: 2)])
        ]
        // field 1 (timeseries) { field 1 (label) {1:"__name__" 2:"a"}, field 1 {1:"b" 2:"c"},
        // field 2 (sample) {1: double 1.0, 2: varint 2} }
        let expected: [UInt8] =
            [0x0A, 0x24]
            + [0x0A, 0x0D, 0x0A, 0x08] + Array("__name__".utf8) + [0x12, 0x01, 0x61]
            + [0x0A, 0x06, 0x0A, 0x01, 0x62, 0x12, 0x01, 0x63]
            + [0x12, 0x0B, 0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x10, 0x02]
        #expect(RemoteWriteRequest.protobuf(series) == expected)
    }

    @Test func snappyLiteralsCarryTheLengthThenTheBytes() {
        #expect(Snappy.compressLiterally([1, 2, 3]) == [3, 2 << 2, 1, 2, 3])
        let long = [UInt8](repeating: 7, count: 70_000)
        let compressed = Snappy.compressLiterally(long)
        // varint 70,000, then a 65,536-byte literal (tag 61: two length bytes) and a 4,464-byte one.
        #expect(compressed.prefix(3) == [0xF0, 0xA2, 0x04])
        #expect(compressed[3...5] == [61 << 2, 0xFF, 0xFF])
        #expect(compressed.count == 3 + 3 + 65_536 + 3 + 4_464)
    }

    @Test func seriesAreSortedByLabelNameWithTheirSamplesInTimeOrder() {
        var first = MetricsSnapshot(identity: .init(runId: "r", scenario: "s", shard: "0/1"))
        first.set(MetricCatalog.arrivals, ["app"], 1)
        var second = first
        second.set(MetricCatalog.arrivals, ["app"], 5)
        let series = RemoteWriteRequest.series([(1000, first), (2000, second)])
        #expect(series.count == 1)
        #expect(series[0].labels.map(\.name) == ["__name__", "group", "run_id", "scenario", "shard"])
        #expect(series[0].samples.map(\.value) == [1, 5])
        #expect(series[0].samples.map(\.milliseconds) == [1000, 2000])
    }

    /// A real Prometheus takes the push: its totals are the snapshot's.
    @Test(.enabled(if: PrometheusProcess.isInstalled, Comment(rawValue: PrometheusProcess.missing)))
    func prometheusAcceptsThePushAndAnswersWithItsTotals() async throws {
        let prometheus = try PrometheusProcess()
        defer { prometheus.stop() }
        var snapshot = MetricsSnapshot(identity: .init(runId: "push-test", scenario: "launch", shard: "0/1"))
        snapshot.set(MetricCatalog.visitors, ["app", "passed"], 40)
        snapshot.set(MetricCatalog.visitors, ["app", "error"], 2)
        var wait = BucketCounts(bounds: MetricCatalog.waitBuckets)
        wait.record(seconds: 30, times: 40)
        snapshot.set(MetricCatalog.wait, ["app"], histogram: wait)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let body = RemoteWriteRequest.body(RemoteWriteRequest.series([(now - 1000, snapshot)]))
        try await RemoteWritePush.send(body, to: prometheus.remoteWriteURL)
        let totals = try prometheus.waitFor(#"sum by (outcome) (queuesim_visitors_total{run_id="push-test"})"#) {
            $0.count == 2
        }
        let byOutcome = Dictionary(uniqueKeysWithValues: totals.map { ($0.0["outcome"] ?? "", $0.1) })
        #expect(byOutcome == ["passed": 40, "error": 2])
        let count = try prometheus.query(#"queuesim_wait_seconds_count{run_id="push-test"}"#)
        #expect(count.first?.1 == 40)
    }
}
