/// The one way queuesim writes a share for people: `99.5%`, `60%`, `0.03%` — at most two
/// decimals, no trailing zeros, as thresholds are written and judged (`passed >= 99.5%`). The
/// end screens of `run`, `merge` and `report` and the scenario summary all use it, so a share
/// reads the same wherever it appears.
package enum PercentText {
    /// `fraction` (0.995) as a percentage (`99.5%`).
    package static func of(_ fraction: Double) -> String {
        "\(ThresholdTable.trimmed(fraction * 100, decimals: 2))%"
    }

    /// `part` of `whole` as a percentage; `0%` of nothing.
    package static func of(_ part: Int, in whole: Int) -> String {
        of(whole > 0 ? Double(part) / Double(whole) : 0)
    }
}
