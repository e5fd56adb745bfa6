/// Reads `metrics.prom` (the OpenMetrics queuesim writes) back into remote-write series: how a
/// finished run — a virtual one, whose seconds were simulated, or a merged one — is pushed with
/// `--metrics-push`. Only the shape `MetricsExposition.openMetrics` writes is read: `#` lines,
/// and samples `name{label="value",…} value timestamp` with label values escaped as
/// Prometheus escapes them (`\\`, `\"`, `\n`).
enum MetricsFileSeries {
    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var description: String { "metrics.prom line \(line) is not a sample queuesim writes" }
    }

    /// Every series in the file, samples in the file's (time) order, timestamps in milliseconds.
    static func series(_ text: String) throws -> [RemoteWriteRequest.TimeSeries] {
        var order: [[String]] = []
        var byKey: [[String]: RemoteWriteRequest.TimeSeries] = [:]
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            lineNumber += 1
            if line.hasPrefix("#") { continue }
            guard let sample = parse(Array(line.utf8)) else { throw Malformed(line: lineNumber) }
            var labels = sample.labels
            labels.append((name: "__name__", value: sample.name))
            labels.sort { $0.name < $1.name }
            let key = labels.flatMap { [$0.name, $0.value] }
            if byKey[key] == nil {
                order.append(key)
                byKey[key] = RemoteWriteRequest.TimeSeries(labels: labels, samples: [])
            }
            byKey[key]!.samples.append((value: sample.value, milliseconds: sample.seconds * 1000))
        }
        return order.map { byKey[$0]! }
    }

    private struct Sample {
        var name: String
        var labels: [(name: String, value: String)]
        var value: Double
        var seconds: Int64
    }

    private static func parse(_ bytes: [UInt8]) -> Sample? {
        var index = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: " ") { index += 1 }
        guard index > 0, index < bytes.count else { return nil }
        let name = String(decoding: bytes[0..<index], as: UTF8.self)
        var labels: [(name: String, value: String)] = []
        if bytes[index] == UInt8(ascii: "{") {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
                let nameStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "=") { index += 1 }
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") else { return nil }
                let labelName = String(decoding: bytes[nameStart..<index], as: UTF8.self)
                index += 2
                var value: [UInt8] = []
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        index += 1
                        value.append(bytes[index] == UInt8(ascii: "n") ? UInt8(ascii: "\n") : bytes[index])
                    } else {
                        value.append(bytes[index])
                    }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                index += 1
                labels.append((name: labelName, value: String(decoding: value, as: UTF8.self)))
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
            }
            guard index < bytes.count else { return nil }
            index += 1
        }
        let rest = String(decoding: bytes[index...], as: UTF8.self).split(separator: " ")
        guard rest.count == 2, let seconds = Int64(rest[1]) else { return nil }
        let value: Double
        switch rest[0] {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let number = Double(rest[0]) else { return nil }
            value = number
        }
        return Sample(name: name, labels: labels, value: value, seconds: seconds)
    }

    /// The series cut into request bodies of about `limit` bytes of protobuf each (a series is
    /// never split: its samples must reach the receiver in time order).
    static func batches(_ series: [RemoteWriteRequest.TimeSeries], limit: Int = 1 << 20) -> [[RemoteWriteRequest
        .TimeSeries]]
    {
        var batches: [[RemoteWriteRequest.TimeSeries]] = []
        var current: [RemoteWriteRequest.TimeSeries] = []
        var size = 0
        for one in series {
            // About 20 bytes a sample and the labels' text: an estimate is enough for a limit.
            let estimate =
                one.samples.count * 20 + one.labels.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 }
            if !current.isEmpty, size + estimate > limit {
                batches.append(current)
                current = []
                size = 0
            }
            current.append(one)
            size += estimate
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}
