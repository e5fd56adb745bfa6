import Histogram

/// The one shape of every timing histogram (milliseconds, three significant digits): the
/// engine's request cells and the reports' timings merge with each other, which needs one shape.
package enum TimingHistogram {
    package static func make() -> Histogram<UInt64> {
        Histogram<UInt64>(numberOfSignificantValueDigits: .three)
    }
}
