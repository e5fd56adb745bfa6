import Foundation
import TestSeeds

/// A deterministic corpus of mutated scenarios (issue 12): the shipped scenarios and a few small
/// bases, each changed the way a careless or hostile user would — extreme numbers, wrong units,
/// misspelt, missing and repeated keys, a scalar where a list belongs, odd strings, `${VAR}`
/// references, feeder paths that are not files. Same seed, same files, so a failure names a
/// case that can be regenerated and read.
struct ScenarioCorpus {
    struct Case {
        /// `017-launch`: the index and the base it came from; the file is `<name>.yaml`.
        var name: String
        /// What was changed, for the failure message.
        var mutations: [String]
        var yaml: String
    }

    /// A small, complete scenario per feature area, with placeholders `{KEY}` that the targeted
    /// cases fill in (the random cases use the defaults).
    static let template = """
        version: 1
        name: corpus
        seed: {SEED}
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: {POLL}, maxWait: {MAXWAIT}, requestTimeout: {TIMEOUT}, maxRestarts: {RESTARTS} }
        arrivals:
          process: poisson
          maxVisitors: {MAXVISITORS}
          phases:
            - { duration: {PHASE}, rate: {RATE}, rampTo: {RAMPTO} }
            - { burst: {BURST} }
            - { pause: {PAUSE} }
        visitors:
          - { name: app, weight: {WEIGHT} }
          - { name: invited, weight: 1, enqueueKey: { csv: data/keys.csv, column: key, order: cycle } }
        waitingRoom:
          eventStart: {EVENTSTART}
          outflow: {OUTFLOW}
          tokenValidity: {TOKEN}
          latency: { enqueue: {LATENCY}, queuePage: 10ms, jitter: {JITTER} }
          faults:
            - { from: {FROM}, to: {TO}, endpoint: enqueue, status: {STATUS}, rate: {SHARE} }
        run: { duration: {RUN}, concurrency: {CONCURRENCY} }
        thresholds:
          - passed >= 0%
        """

    static let defaults: [String: String] = [
        "SEED": "1", "POLL": "1s", "MAXWAIT": "1m", "TIMEOUT": "10s", "RESTARTS": "1", "MAXVISITORS": "1000",
        "PHASE": "5s", "RATE": "10", "RAMPTO": "20", "BURST": "50", "PAUSE": "1s", "WEIGHT": "3",
        "EVENTSTART": "2s", "OUTFLOW": "600/min", "TOKEN": "3m", "LATENCY": "20ms", "JITTER": "5ms",
        "FROM": "1s", "TO": "2s", "STATUS": "503", "SHARE": "10%", "RUN": "30s", "CONCURRENCY": "1000",
    ]

    /// Numbers a value must be checked against: the overflow edges of Int64 and Double, the
    /// smallest positive values, zero, negatives, and what YAML reads as special floats.
    static let extremeNumbers = [
        "0", "-1", "1e300", "9223372036854775807", "9223372036854775808", "99999999999999999999",
        "0.00000000001", "1e-300", "-0", ".inf", ".nan", "4294967296", "1000000000", "0x10", "1_000",
    ]
    static let units = ["", "ms", "s", "m", "h", "d", "us", "/min", "/s", "/h", "/day", "%", "x", " s", "/"]
    static let strings = [
        "\"\"", "''", "\"\\u0001\\u0007\"", "\"a\\tb\\nc\"", "\"\\u202Eevil\"", "\"\\uFEFF\"", "~", "null",
        "'  '", "../../etc/passwd", "日本語", "\"😀\"", "true", "[]", "{}", "\"a/b\\\\c\"",
        String(repeating: "x", count: 5000),
    ]
    static let environmentReferences = [
        "${QUEUESIM_CORPUS_UNSET}", "${QUEUESIM_CORPUS_UNSET:-}", "${QUEUESIM_CORPUS_UNSET:-9999999999999}",
        "${QUEUESIM_CORPUS_EMPTY}", "${QUEUESIM_CORPUS_HUGE}", "${", "${}", "$${QUEUESIM_CORPUS_EMPTY}",
        "${QUEUESIM_CORPUS_UNSET:-${QUEUESIM_CORPUS_EMPTY}}", "\"${QUEUESIM_CORPUS_HUGE}/min\"",
    ]
    /// Values for the children's environment: what `environmentReferences` expand to.
    static let environment = ["QUEUESIM_CORPUS_EMPTY": "", "QUEUESIM_CORPUS_HUGE": "1e300"]
    /// Relative to the corpus folder, which holds `data/keys.csv`, an empty file, a header-only
    /// file and a file without a `key` column (see `writeFixtures`).
    static let feederPaths = [
        "missing.csv", "data", "data/", "/dev/null", "/etc/passwd", "data/empty.csv", "data/header-only.csv",
        "data/other-column.csv", "\"\"", "/", "data/keys.csv/x", "data/../data/keys.csv", "/proc/self/status",
    ]

    let bases: [(name: String, text: String)]
    private var random: SplitMix64

    init(bases: [(name: String, text: String)], seed: UInt64) {
        self.bases = bases + [("template", Self.filled([:]))]
        random = SplitMix64(seed: seed)
    }

    static func filled(_ values: [String: String]) -> String {
        var text = template
        for (key, value) in defaults.merging(values, uniquingKeysWith: { $1 }) {
            text = text.replacingOccurrences(of: "{\(key)}", with: value)
        }
        return text
    }

    /// Every placeholder with every extreme number (bare and, for those that take units, with
    /// the unit that makes it largest or smallest), then `randomCount` random mutants.
    mutating func cases(randomCount: Int) -> [Case] {
        var cases: [Case] = []
        func add(_ base: String, _ mutations: [String], _ yaml: String) {
            cases.append(Case(name: String(format: "%03d-%@", cases.count, base), mutations: mutations, yaml: yaml))
        }
        let timed = ["POLL", "MAXWAIT", "TIMEOUT", "PHASE", "PAUSE", "EVENTSTART", "TOKEN", "LATENCY", "JITTER", "RUN"]
        let counted = ["SEED", "RESTARTS", "MAXVISITORS", "BURST", "WEIGHT", "CONCURRENCY", "STATUS"]
        for key in timed + counted + ["RATE", "RAMPTO", "OUTFLOW", "SHARE", "FROM", "TO"] {
            for number in ["0", "-1", "1e300", "9223372036854775807", "0.00000000001", "99999999999999999999"] {
                add("template", ["\(key)=\(number)"], Self.filled([key: number]))
            }
        }
        for (key, unit) in [("PAUSE", "h"), ("PHASE", "h"), ("RUN", "h"), ("MAXWAIT", "h"), ("EVENTSTART", "h")] {
            for number in ["100000", "1e15", "9223372036854775807"] {
                add("template", ["\(key)=\(number)\(unit)"], Self.filled([key: number + unit]))
            }
        }
        for (key, unit) in [("RATE", "/min"), ("RAMPTO", "/s"), ("OUTFLOW", "/min"), ("OUTFLOW", "/h")] {
            for number in ["0.00000000001", "1e300", "1e-300", "9223372036854775807", "1e9"] {
                add("template", ["\(key)=\(number)\(unit)"], Self.filled([key: number + unit]))
            }
        }
        for number in ["1e9", "1e12", "100000000"] {
            add(
                "template", ["BURST=\(number) without a visitor cap"],
                Self.filled(["BURST": number]).replacingOccurrences(of: "  maxVisitors: 1000\n", with: ""))
        }
        for key in ["RATE", "BURST", "OUTFLOW", "RUN"] {
            for reference in Self.environmentReferences {
                add("template", ["\(key)=\(reference)"], Self.filled([key: reference]))
            }
        }
        for path in Self.feederPaths {
            add(
                "template", ["feeder csv=\(path)"],
                Self.filled([:]).replacingOccurrences(of: "csv: data/keys.csv", with: "csv: \(path)"))
        }
        // Strings a message may echo: line breaks, bell, bidi override, a very long word.
        let texts = [
            "process: poisson", "name: corpus", "customerId: acme", "waitingRoomId: launch", "column: key",
            "order: cycle", "endpoint: enqueue", "name: app", "passed >= 0%",
        ]
        for text in texts {
            let prefix = text.contains(":") ? String(text.prefix(through: text.firstIndex(of: ":")!)) + " " : "- "
            for value in ["\"a\\tb\\nc\"", "\"\\u202Eevil\\u0007\"", String(repeating: "w", count: 3000)] {
                let original = text.contains(":") ? text : "- " + text
                add(
                    "template", ["\(text) → \(value.prefix(20))"],
                    Self.filled([:]).replacingOccurrences(of: original, with: prefix + value))
            }
        }
        add("template", ["a key with a line break"], Self.filled([:]) + "\n\"bad\\nkey\": 1\n")
        add(
            "template", ["unique feeder with more visitors than rows"],
            Self.filled(["BURST": "500"]).replacingOccurrences(of: "order: cycle", with: "order: unique"))
        for _ in 0..<randomCount {
            let base = pick(bases)
            var lines = base.text.components(separatedBy: "\n")
            var applied: [String] = []
            for _ in 0..<(1 + Int(random.next() % 3)) {
                applied.append(mutate(&lines))
            }
            add(base.name, applied, lines.joined(separator: "\n"))
        }
        return cases
    }

    // MARK: Mutations

    private mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    /// One mutation of `lines`, described.
    private mutating func mutate(_ lines: inout [String]) -> String {
        let pairs = Self.keyValuePairs(lines)
        guard !pairs.isEmpty else { return "none (no key: value pairs)" }
        let pair = pick(pairs)
        let line = lines[pair.line] as NSString
        func replacing(_ range: NSRange, with text: String) -> String {
            lines[pair.line] = line.replacingCharacters(in: range, with: text)
            return text
        }
        let key = line.substring(with: pair.key)
        let value = line.substring(with: pair.value)
        switch random.next() % 12 {
        case 0, 1:
            let number = pick(Self.extremeNumbers)
            let digits = value.prefix(while: { $0.isNumber || $0 == "." || $0 == "-" })
            let unit = digits.isEmpty ? "" : String(value.dropFirst(digits.count))
            return "\(key): \(replacing(pair.value, with: number + unit))"
        case 2:
            let digits = value.prefix(while: { $0.isNumber || $0 == "." })
            let number = digits.isEmpty ? pick(Self.extremeNumbers) : String(digits)
            return "\(key): \(replacing(pair.value, with: number + pick(Self.units)))"
        case 3:
            var typo = Array(key)
            let at = Int(random.next() % UInt64(typo.count))
            switch random.next() % 3 {
            case 0: typo.remove(at: at)
            case 1: typo.insert(typo[at], at: at)
            default: typo[at] = Character(typo[at].isUppercase ? typo[at].lowercased() : typo[at].uppercased())
            }
            return "key \(key) → \(replacing(pair.key, with: typo.isEmpty ? "_" : String(typo)))"
        case 4:
            lines.remove(at: pair.line)
            return "deleted line `\(line)`"
        case 5:
            lines.insert(line as String, at: pair.line)
            return "duplicated line `\(line)`"
        case 6:
            let shape = pick([
                "[\(value), \(value)]", "{ \(key): \(value) }", "[]", "{}", "- \(value)", "\n  - \(value)",
            ])
            return "\(key): \(replacing(pair.value, with: shape))"
        case 7:
            return "\(key): \(replacing(pair.value, with: pick(Self.strings)).prefix(40))"
        case 8:
            return "\(key): \(replacing(pair.value, with: pick(Self.environmentReferences)))"
        case 9:
            // A scalar where a block was: `phases:` followed by its indented list.
            guard let header = lines.indices.filter({ lines[$0].hasSuffix(":") }).randomElement(using: &random) else {
                return "none (no block)"
            }
            let scalar = pick(["5", "\"text\"", "[]", "~", "{ a: 1 }"])
            lines[header] += " \(scalar)"
            return "block `\(lines[header])`"
        case 10:
            let path = pick(Self.feederPaths)
            for index in lines.indices where lines[index].contains("csv: ") {
                lines[index] = lines[index].replacingOccurrences(of: "data/keys.csv", with: path)
            }
            return "feeder paths → \(path)"
        default:
            let addition = pick([
                "version: 2", "clock: banana", "clock: virtual", "unknown: 1", "arrivals: 5", "visitors: []",
                "waitingRoom: ~", "run: { duration: 0s }", "thresholds: [ \"wait.p100 < 1s\", \"passed >= 1e300%\" ]",
                "thresholds: [ garbage ]", "reports: { dir: \"\" }", "target: { customerId: acme }",
            ])
            lines.append(addition)
            return "appended `\(addition)`"
        }
    }

    /// `key: value` pairs in block or flow style, each a line index and the UTF-16 ranges of
    /// the key and the value (the value ends at `,` `}` `]` `#` or the line's end).
    static func keyValuePairs(_ lines: [String]) -> [(line: Int, key: NSRange, value: NSRange)] {
        var pairs: [(line: Int, key: NSRange, value: NSRange)] = []
        for (index, line) in lines.enumerated() {
            let text = line as NSString
            for match in pairExpression.matches(in: line, range: NSRange(location: 0, length: text.length)) {
                pairs.append((index, match.range(at: 1), match.range(at: 2)))
            }
        }
        return pairs
    }

    private static let pairExpression = try! NSRegularExpression(
        pattern: #"(?<=^|[\s{,-])([A-Za-z][A-Za-z0-9_.]*): +([^,}\]#\s](?:[^,}\]#\r\n]*[^,}\]#\s])?)"#)
}
