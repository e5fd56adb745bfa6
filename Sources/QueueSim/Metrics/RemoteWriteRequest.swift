/// Prometheus remote write 1.0: a `WriteRequest` protobuf, compressed with Snappy's block
/// format, POSTed with the headers below. Written by hand rather than generated: the message is
/// three small types and the encoder a few varints, so no code generator joins the build.
///
///     message WriteRequest { repeated TimeSeries timeseries = 1; }
///     message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
///     message Label        { string name = 1; string value = 2; }
///     message Sample       { double value = 1; int64 timestamp = 2; }   // milliseconds
///
/// Histograms go as Prometheus's classic series: `_bucket{le}`, `_count`, `_sum`.
package enum RemoteWriteRequest {
    package static let headers: [(String, String)] = [
        ("Content-Type", "application/x-protobuf"), ("Content-Encoding", "snappy"),
        ("X-Prometheus-Remote-Write-Version", "0.1.0"), ("User-Agent", "queuesim"),
    ]

    /// One series: labels (sorted by name, `__name__` among them) and its samples in time order.
    package struct TimeSeries: Sendable, Equatable {
        package var labels: [(name: String, value: String)]
        package var samples: [(value: Double, milliseconds: Int64)]

        package static func == (lhs: TimeSeries, rhs: TimeSeries) -> Bool {
            lhs.labels.elementsEqual(rhs.labels) { $0 == $1 }
                && lhs.samples.elementsEqual(rhs.samples) { $0 == $1 }
        }
    }

    /// The series of `snapshots`, each taken at its instant (milliseconds since the epoch).
    package static func series(_ snapshots: [(milliseconds: Int64, snapshot: MetricsSnapshot)]) -> [TimeSeries] {
        var order: [[String]] = []
        var byKey: [[String]: TimeSeries] = [:]
        func add(_ name: String, _ names: [String], _ values: [String], _ value: Double, _ at: Int64) {
            var labels = zip(names, values).map { (name: $0, value: $1) }
            labels.append((name: "__name__", value: name))
            labels.sort { $0.name < $1.name }
            let key = labels.flatMap { [$0.name, $0.value] }
            if byKey[key] == nil {
                order.append(key)
                byKey[key] = TimeSeries(labels: labels, samples: [])
            }
            byKey[key]!.samples.append((value: value, milliseconds: at))
        }
        for (milliseconds, snapshot) in snapshots {
            for family in MetricCatalog.families {
                let names = MetricCatalog.commonLabels + family.labels
                for series in snapshot.series[family.name] ?? [] {
                    let values = snapshot.identity.labelValues + series.labels
                    switch series.value {
                    case .number(let value):
                        add(family.name, names, values, value, milliseconds)
                    case .histogram(let histogram):
                        for (index, count) in histogram.cumulative.enumerated() {
                            let bound =
                                index < histogram.bounds.count
                                ? MetricsExposition.number(histogram.bounds[index]) : "+Inf"
                            add(family.name + "_bucket", names + ["le"], values + [bound], Double(count), milliseconds)
                        }
                        add(family.name + "_count", names, values, Double(histogram.count), milliseconds)
                        add(family.name + "_sum", names, values, histogram.sum, milliseconds)
                    }
                }
            }
        }
        return order.map { byKey[$0]! }
    }

    /// The request body: the protobuf, Snappy-compressed.
    package static func body(_ series: [TimeSeries]) -> [UInt8] {
        Snappy.compressLiterally(protobuf(series))
    }

    /// The uncompressed `WriteRequest`.
    package static func protobuf(_ series: [TimeSeries]) -> [UInt8] {
        var out: [UInt8] = []
        for timeSeries in series {
            var message: [UInt8] = []
            for label in timeSeries.labels {
                var labelBytes: [UInt8] = []
                Protobuf.appendString(label.name, field: 1, to: &labelBytes)
                Protobuf.appendString(label.value, field: 2, to: &labelBytes)
                Protobuf.appendMessage(labelBytes, field: 1, to: &message)
            }
            for sample in timeSeries.samples {
                var sampleBytes: [UInt8] = []
                Protobuf.appendDouble(sample.value, field: 1, to: &sampleBytes)
                Protobuf.appendVarintField(UInt64(bitPattern: sample.milliseconds), field: 2, to: &sampleBytes)
                Protobuf.appendMessage(sampleBytes, field: 2, to: &message)
            }
            Protobuf.appendMessage(message, field: 1, to: &out)
        }
        return out
    }
}

/// The protobuf wire format, as far as a `WriteRequest` needs it.
enum Protobuf {
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    static func appendVarintField(_ value: UInt64, field: Int, to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3), to: &out)  // wire type 0
        appendVarint(value, to: &out)
    }

    static func appendDouble(_ value: Double, field: Int, to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | 1), to: &out)  // wire type 1: 64-bit, little-endian
        var bits = value.bitPattern
        for _ in 0..<8 {
            out.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    static func appendMessage(_ bytes: [UInt8], field: Int, to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | 2), to: &out)  // wire type 2: length-delimited
        appendVarint(UInt64(bytes.count), to: &out)
        out += bytes
    }

    static func appendString(_ text: String, field: Int, to out: inout [UInt8]) {
        appendMessage(Array(text.utf8), field: field, to: &out)
    }
}

/// Snappy's block format with literals only: valid input for every Snappy decoder, and
/// enough for a push every few seconds (the issue allows it; compression would only save
/// bandwidth on loopback).
enum Snappy {
    static func compressLiterally(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count + input.count / 65_536 * 3 + 8)
        Protobuf.appendVarint(UInt64(input.count), to: &out)
        var start = 0
        while start < input.count {
            let length = min(65_536, input.count - start)
            let stored = length - 1
            if stored < 60 {
                out.append(UInt8(stored << 2))
            } else if stored < 1 << 8 {
                out.append(60 << 2)
                out.append(UInt8(stored))
            } else {
                out.append(61 << 2)
                out.append(UInt8(stored & 0xFF))
                out.append(UInt8(stored >> 8))
            }
            out += input[start..<(start + length)]
            start += length
        }
        return out
    }
}
