import Testing

@testable import QueueClientCore

/// Durations become nanoseconds and milliseconds through a shortcut for non-negative, not too
/// long ones; its result must equal the rounding rules worked out from `components`.
@Suite("Duration conversions")
struct DurationConversionTests {
    private static func expectedNanoseconds(_ duration: Duration) -> Int64? {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? nil : sum
    }

    /// Nil where the milliseconds do not fit in 64 bits (no conversion is asked for those).
    private static func expectedMilliseconds(_ duration: Duration) -> Int64? {
        let (seconds, attoseconds) = duration.components
        guard seconds.magnitude < UInt64(Int64.max / 1000) else { return nil }
        let millis = attoseconds / 1_000_000_000_000_000
        let rounded = attoseconds < 0 && attoseconds % 1_000_000_000_000_000 != 0 ? millis - 1 : millis
        return seconds * 1000 + rounded
    }

    private static var samples: [Duration] {
        var durations: [Duration] = [
            .zero, .nanoseconds(1), .nanoseconds(-1), .milliseconds(999), .milliseconds(-1), .seconds(1),
            .seconds(-3), .seconds(45 * 60), .seconds(2 * 3600), .seconds(7 * 24 * 3600), .seconds(Int64.max),
            .seconds(Int64.min), Duration(secondsComponent: 0, attosecondsComponent: 999_999_999),
            Duration(secondsComponent: 0, attosecondsComponent: -999_999_999),
        ]
        // Both sides of each shortcut's edge: 2^73 attoseconds (nanoseconds), 2^79 (milliseconds).
        for bits in [72, 73, 74, 78, 79, 80] {
            let edge = Int128(1) << bits
            for delta in [-1_000_000_000, -1, 0, 1, 1_000_000_000] as [Int128] {
                durations.append(Duration(attoseconds: edge + delta))
                durations.append(Duration(attoseconds: -(edge + delta)))
            }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let attoseconds =
                Int128(Int64.random(in: -1 << 62...1 << 62, using: &random))
                * Int128(Int64.random(in: 1...400_000, using: &random))
            durations.append(Duration(attoseconds: attoseconds))
        }
        return durations
    }

    @Test("nanoseconds and milliseconds round as the components say")
    func shortcutMatchesComponents() {
        for duration in Self.samples {
            let nanoseconds = Self.expectedNanoseconds(duration)
            if let nanoseconds { #expect(duration.wholeNanoseconds == nanoseconds, "\(duration)") }
            let saturated = nanoseconds ?? (duration > .zero ? .max : .min)
            #expect(duration.saturatingNanoseconds == saturated, "\(duration)")
            if let milliseconds = Self.expectedMilliseconds(duration) {
                #expect(duration.wholeMilliseconds == milliseconds, "\(duration)")
            }
        }
    }

    @Test("an instant's whole seconds are its duration's seconds component, negative ones included")
    func instantSecondsMatchComponents() {
        var instants: [Int64] = [0, 1, -1, 999_999_999, -999_999_999, 1_000_000_000, -1_000_000_000, .max, .min]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { instants.append(Int64.random(in: .min ... .max, using: &random)) }
        for nanoseconds in instants {
            let instant = RunInstant(wholeNanoseconds: nanoseconds)
            #expect(instant.wholeSecondsSinceOrigin == instant.sinceOrigin.components.seconds, "\(nanoseconds)")
        }
    }
}
