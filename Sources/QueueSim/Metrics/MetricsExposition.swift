import Foundation

/// Writes snapshots as text: the Prometheus text format (0.0.4) a scrape of `/metrics` gets,
/// and OpenMetrics with timestamps for `metrics.prom`, the file `promtool tsdb
/// create-blocks-from openmetrics` turns into blocks.
package enum MetricsExposition {
    /// `Content-Type` of a scrape.
    package static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One snapshot, no timestamps: what `/metrics` serves.
    package static func prometheus(_ snapshot: MetricsSnapshot) -> String {
        var out = ""
        for family in MetricCatalog.families {
            guard let list = snapshot.series[family.name], !list.isEmpty else { continue }
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for series in list {
                SeriesLines(family, series, identity: snapshot.identity).append(series.value, timestamp: nil, to: &out)
            }
        }
        return out
    }

    /// Snapshots of successive instants (seconds since the epoch), one sample per series per
    /// instant, grouped as OpenMetrics requires: each family once, each series' points in time
    /// order, `# EOF` last. A series appears from the first snapshot that has it.
    package static func openMetrics(_ snapshots: [(seconds: Int64, snapshot: MetricsSnapshot)]) -> String {
        var text = ""
        openMetrics(snapshots) { text += $0 }
        return text
    }

    /// The same text, handed to `emit` in pieces of about 64 KiB: an hour's file is tens of
    /// megabytes, written at the end of the run, when a virtual run's memory peaks.
    package static func openMetrics(
        _ snapshots: [(seconds: Int64, snapshot: MetricsSnapshot)], emit: (String) throws -> Void
    ) rethrows {
        var out = ""
        out.reserveCapacity(piece + 4096)
        for family in MetricCatalog.families { try appendFamily(family, of: snapshots, to: &out, emit: emit) }
        try emit(out + "# EOF\n")
    }

    /// How much text `openMetrics` gathers before handing it to `emit`.
    static let piece = 1 << 16

    /// One family's part of `openMetrics`: appended to `out`, which goes to `emit` (and is
    /// emptied) whenever it holds `piece` bytes. Nothing when no snapshot has the family.
    static func appendFamily(
        _ family: MetricCatalog.Family, of snapshots: [(seconds: Int64, snapshot: MetricsSnapshot)],
        to out: inout String, emit: (String) throws -> Void
    ) rethrows {
        // Each series' samples as (snapshot, position in its list), series in order of first
        // appearance: one pass, where finding each series in each snapshot by its labels was
        // quadratic in the series (2,000 groups, issue 51).
        var order: [[String]: Int] = [:]
        var samples: [[(snapshot: Int, position: Int)]] = []
        for (index, (_, snapshot)) in snapshots.enumerated() {
            for (position, series) in (snapshot.series[family.name] ?? []).enumerated() {
                let number = order[series.labels] ?? samples.count
                if number == samples.count {
                    order[series.labels] = number
                    samples.append([])
                }
                samples[number].append((index, position))
            }
        }
        guard !samples.isEmpty else { return }
        // Counters keep their sample name (`…_total`) as the family's: Prometheus's
        // OpenMetrics parser (`promtool tsdb create-blocks-from openmetrics`) accepts it, and
        // `promtool check metrics`, which reads the text format, then finds each counter's
        // help; with the family named without `_total` it reported every counter as having none.
        out += openMetricsHeader(family)
        for seriesSamples in samples {
            // A series' name and labels are the same in each of its samples: written once.
            var lines: SeriesLines?
            for (index, position) in seriesSamples {
                let (seconds, snapshot) = snapshots[index]
                let series = snapshot.series[family.name]![position]
                if lines == nil || !lines!.fits(snapshot.identity, series.value) {
                    lines = SeriesLines(family, series, identity: snapshot.identity)
                }
                lines!.append(series.value, timestamp: seconds, to: &out)
                if out.utf8.count >= piece {
                    try emit(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// A series' lines. Their start (`name{labels}`, and per bucket of a histogram
    /// `name_bucket{labels,le="bound"}`) is made once and kept for the series' next samples: an
    /// hour's `metrics.prom` has tens of thousands per series, and writing the labels out for
    /// each was most of its time.
    private struct SeriesLines {
        let identity: MetricsSnapshot.Identity
        let bounds: [Double]?
        let plain: String
        let buckets: [String]
        let count: String
        let sum: String

        init(_ family: MetricCatalog.Family, _ series: MetricsSnapshot.Series, identity: MetricsSnapshot.Identity) {
            self.identity = identity
            let names = MetricCatalog.commonLabels + family.labels
            let values = identity.labelValues + series.labels
            // The labels escaped and joined once per series: metrics.prom of 2,000 groups makes
            // tens of thousands of these, each with 16 bucket lines (issue 51).
            let labels = labelList(names, values)
            switch series.value {
            case .number:
                bounds = nil
                plain = family.name + "{" + labels + "}"
                (buckets, count, sum) = ([], "", "")
            case .histogram(let histogram):
                bounds = histogram.bounds
                plain = ""
                let bucketStart = family.name + "_bucket{" + labels + ",le=\""
                buckets = (0...histogram.bounds.count).map { index in
                    bucketStart + (index < histogram.bounds.count ? number(histogram.bounds[index]) : "+Inf") + "\"}"
                }
                count = family.name + "_count{" + labels + "}"
                sum = family.name + "_sum{" + labels + "}"
            }
        }

        func fits(_ identity: MetricsSnapshot.Identity, _ value: MetricsSnapshot.Value) -> Bool {
            guard identity == self.identity else { return false }
            switch value {
            case .number: return bounds == nil
            case .histogram(let histogram): return histogram.bounds == bounds
            }
        }

        /// The lines of one sample of the series, with `timestamp` (seconds) when given.
        func append(_ value: MetricsSnapshot.Value, timestamp: Int64?, to out: inout String) {
            let suffix = timestamp.map { " \($0)\n" } ?? "\n"
            switch value {
            case .number(let value):
                out += plain
                out += " "
                out += number(value)
                out += suffix
            case .histogram(let histogram):
                for (index, cumulative) in histogram.cumulative.enumerated() {
                    out += buckets[index]
                    out += " "
                    out += String(cumulative)
                    out += suffix
                }
                out += count
                out += " "
                out += String(histogram.count)
                out += suffix
                out += sum
                out += " "
                out += number(histogram.sum)
                out += suffix
            }
        }
    }

    /// A family's `# TYPE` and `# HELP` lines in metrics.prom.
    static func openMetricsHeader(_ family: MetricCatalog.Family) -> String {
        "# TYPE \(family.name) \(family.kind.rawValue)\n# HELP \(family.name) \(escapeHelp(family.help))\n"
    }

    /// `name="value",…` without the braces.
    static func labelList(_ names: [String], _ values: [String]) -> String {
        var text = ""
        for (index, (name, value)) in zip(names, values).enumerated() {
            if index > 0 { text += "," }
            text += name
            text += "=\""
            text += escapeLabel(value)
            text += "\""
        }
        return text
    }

    /// Whole numbers without a fraction (`12`), others as Swift writes a Double (`0.005`).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func escapeLabel(_ text: String) -> String {
        // Most values need nothing escaped: no copy for them.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A })
        else { return text }
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
