import Foundation

/// The common start of a sharded run (`run.startAt`, `--start-at`): an ISO 8601 date and
/// time with its zone, e.g. `2026-12-01T18:00:00Z` or `2026-12-01T19:00:00.500+01:00`.
///
/// A zone is required: pods in different regions read a bare `18:00` differently, and the
/// point is that every shard waits for the same instant.
package enum StartInstant {
    package static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for options in [
            ISO8601DateFormatter.Options.withInternetDateTime,
            [.withInternetDateTime, .withFractionalSeconds],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// `2026-12-01T18:00:00.000Z`: UTC with milliseconds, as run.json writes times.
    package static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static let expected = "an ISO 8601 time with its zone, e.g. 2026-12-01T18:00:00Z"
}
