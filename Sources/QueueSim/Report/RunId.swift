import Crypto
import Foundation

/// Run ids: the UTC start time to the second, then four hex digits, e.g.
/// `20261123T194501Z-3f9a`. Sorting ids sorts runs by start.
package enum RunId {
    /// A run of its own: its start and four random digits.
    package static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(UInt16.random(in: 0...UInt16.max, using: &generator), radix: 16)
        return timestamp(date) + "-" + String(repeating: "0", count: 4 - suffix.count) + suffix
    }

    /// The id every process of one run shares when they have a common start (`--start-at`):
    /// the shards of a run and the `queuesim serve` room they share. Derived, not drawn, from
    /// what makes them one run — the scenario file (its SHA-256), the seed and second 0 (to
    /// the millisecond) — so N pods that never talk to each other label their metrics alike
    /// and a dashboard shows one run. The digits are the first four of
    /// SHA-256(`sha256|seed|start ms`).
    package static func shared(scenarioSHA256: String, seed: UInt64, startAt: Date) -> String {
        let startMs = Int64((startAt.timeIntervalSince1970 * 1000).rounded(.down))
        let digest = SHA256.hash(data: Array("\(scenarioSHA256)|\(seed)|\(startMs)".utf8))
        let suffix = digest.prefix(2).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return timestamp(startAt) + "-" + suffix
    }

    static func timestamp(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
