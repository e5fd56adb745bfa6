import Histogram
import QueueClientCore

/// What `report.html` needs beyond the summary and the timeline, gathered as visitors finish:
/// why visitors failed, per group, and how long visitors waited by the time they arrived.
/// Bounded memory: at most `causesKept` distinct causes per group, eight bytes per visitor
/// that waited, and one wait histogram per group that has waits enough to need one.
struct LaunchPicture {
    struct Cause: Equatable {
        /// `HTTP 503`, or the transport error in words.
        var key: String
        var count: Int
        /// The first message seen for this cause (already redacted: records never hold tokens).
        var example: String
    }

    static let causesKept = 32
    /// Outcomes whose causes the report lists: the visitor did not get through for a reason
    /// a server or the network gave.
    static let failureOutcomes: Set<VisitorOutcome> = [.error, .unavailable, .restarted, .closed]

    private var causeIndex: [String: [String: Int]] = [:]
    private(set) var causes: [String: [Cause]] = [:]
    /// Failures whose cause did not fit in `causesKept`, per group.
    private(set) var otherCauses: [String: Int] = [:]
    /// `arrivalSecond << 32 | waitMs` of every visitor that entered the queue page.
    private(set) var waitsByArrival: [UInt64] = []
    /// A list per group until it has waits enough for a histogram (`TimingValues`).
    private(set) var waitsByGroup: [String: TimingValues] = [:]

    /// Groups' wait lists that became HdrHistograms (`Recorder.groupStorage`).
    var waitHistogramCount: Int { waitsByGroup.values.count { $0.holdsHistogram } }

    /// `queued` visitors whose queue page runs its own script (Queue-it's real page), which
    /// queuesim loads once and does not run (`VisitorMachine.scriptPageCause`).
    private(set) var queuedOnScriptPage = 0

    mutating func add(_ record: VisitorRecord) {
        if Self.failureOutcomes.contains(record.outcome) { addCause(of: record) }
        if record.outcome == .queued, record.error == VisitorMachine.scriptPageCause { queuedOnScriptPage += 1 }
        guard record.queueEntered != nil else { return }
        let wait = UInt64(record.waitMilliseconds)
        waitsByArrival.append(UInt64(Timeline.second(of: record.arrival)) << 32 | min(wait, UInt64(UInt32.max)))
        waitsByGroup[record.group, default: TimingValues()].record(wait)
    }

    private mutating func addCause(of record: VisitorRecord) {
        let key =
            if let status = record.httpStatus, status >= 300 { "HTTP \(status)" } else {
                record.error.map { String($0.prefix(120)) } ?? record.outcome.rawValue
            }
        if let index = causeIndex[record.group]?[key] {
            causes[record.group]![index].count += 1
            return
        }
        guard (causes[record.group]?.count ?? 0) < Self.causesKept else {
            otherCauses[record.group, default: 0] += 1
            return
        }
        causeIndex[record.group, default: [:]][key] = causes[record.group, default: []].count
        causes[record.group, default: []].append(
            Cause(key: key, count: 1, example: String((record.error ?? record.outcome.rawValue).prefix(300))))
    }

    /// A group's causes, most frequent first (ties by cause, so the page is deterministic).
    func topCauses(of group: String, limit: Int = 5) -> [Cause] {
        let sorted = (causes[group] ?? []).sorted { ($0.count, $1.key) > ($1.count, $0.key) }
        return Array(sorted.prefix(limit))
    }

    /// p50 and p95 of the wait of the visitors who arrived in each bucket of `bucketSeconds`.
    func waitByArrival(bucketSeconds: Int) -> [(bucket: Int, p50: UInt64, p95: UInt64)] {
        BucketPercentiles.of(waitsByArrival, bucketSeconds: bucketSeconds, percents: [50, 95]).map {
            ($0.bucket, $0.values[0], $0.values[1])
        }
    }
}

/// Nearest-rank percentiles of `second << 32 | value` keys grouped into buckets of seconds.
enum BucketPercentiles {
    static func of(_ keys: [UInt64], bucketSeconds: Int, percents: [Int]) -> [(bucket: Int, values: [UInt64])] {
        var result: [(bucket: Int, values: [UInt64])] = []
        var values: [UInt64] = []
        var current = -1
        func flush() {
            guard !values.isEmpty else { return }
            values.sort()
            result.append((current, percents.map { values[(($0 * values.count + 99) / 100) - 1] }))
            values.removeAll(keepingCapacity: true)
        }
        for key in keys.sorted() {
            let bucket = Int(key >> 32) / bucketSeconds
            if bucket != current {
                flush()
                current = bucket
            }
            values.append(key & 0xFFFF_FFFF)
        }
        flush()
        return result
    }
}
