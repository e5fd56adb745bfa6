import Foundation

/// Run ids: the UTC start time to the second, then four random hex digits, e.g.
/// `20261123T194501Z-3f9a`. Sorting ids sorts runs by start.
package enum RunId {
    package static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(UInt16.random(in: 0...UInt16.max, using: &generator), radix: 16)
        return timestamp(date) + "-" + String(repeating: "0", count: 4 - suffix.count) + suffix
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
