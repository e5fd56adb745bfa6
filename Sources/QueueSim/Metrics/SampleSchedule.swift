/// The seconds at which one per-group series of `metrics.prom` has a sample (docs/metrics.md,
/// "Per-group series: a sample when the value changes"): the run's first and last second,
/// every second its value changed and the second before it, and otherwise at least every
/// `maxGap` seconds.
///
/// Why: a group's series are most of the file, and a scenario of 2,000 small groups wrote one
/// sample per series per second (143 MB for launch.yaml's 50 seconds). The rule loses nothing:
/// the value at any second is that of the latest sample at or before it, because every change
/// has its own sample. A Prometheus instant query (5-minute lookback) finds a sample at most
/// `maxGap` seconds old, so it reads the same value as with a sample every second; the sample
/// before each change keeps the old value up to the second the new one starts, so the first
/// and last values `rate()` and `increase()` take inside a window are the dense file's.
struct SampleSchedule {
    /// Prometheus's default scrape interval: a rate window of Grafana's `$__rate_interval`
    /// (at least 4 × 15 s) always holds 4 samples or more.
    static let maxGap = 15

    /// The seconds the value changes at, ascending, no repeats.
    private let changes: [Int]
    private let lastSecond: Int
    private var cursor = 0
    private var lastSample: Int?

    /// `changes`: the seconds the value changes at, in any order (repeats allowed);
    /// `seconds`: the run's seconds (`0..<seconds`).
    init(changes: some Sequence<Int>, seconds: Int) {
        self.changes = Array(Set(changes)).sorted()
        lastSecond = seconds - 1
    }

    /// Whether `second` has a sample. Asked once per second, in ascending order.
    mutating func samples(_ second: Int) -> Bool {
        while cursor < changes.count, changes[cursor] < second { cursor += 1 }
        // The change at `cursor` is this second's or a later one; the one after it may be the next second's.
        let changesNow = cursor < changes.count && changes[cursor] == second
        let next = changesNow ? cursor + 1 : cursor
        let changesNext = next < changes.count && changes[next] == second + 1
        let due = lastSample.map { second - $0 >= Self.maxGap } ?? true
        guard due || changesNow || changesNext || second == lastSecond else { return false }
        lastSample = second
        return true
    }

    /// The seconds `samples(_:)` says yes to, found by jumping from one sample to the next:
    /// the work is the samples' and the changes', not the run's seconds (metrics.prom writes a
    /// group's series this way). `changes`: ascending, no repeats.
    static func sampledSeconds(changes: [Int], seconds: Int) -> [Int] {
        let lastSecond = seconds - 1
        guard lastSecond >= 0 else { return [] }
        var result = [0]
        var cursor = 0
        var last = 0
        while last < lastSecond {
            while cursor < changes.count, changes[cursor] <= last { cursor += 1 }
            var next = min(last + maxGap, lastSecond)
            // The next change, or the second before it when that is still after the last sample.
            if cursor < changes.count { next = min(next, max(changes[cursor] - 1, last + 1)) }
            result.append(next)
            last = next
        }
        return result
    }
}
