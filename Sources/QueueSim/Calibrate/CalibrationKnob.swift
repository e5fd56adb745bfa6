import Foundation

/// One unknown `calibrate` fits: a scenario path (as `--set` writes it), where its search starts
/// and how its values are written. Durations are searched on a log scale (a patience of 2 min
/// and one of 4 min are as far apart as 4 and 8), shares on a linear one.
package struct CalibrationKnob: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Seconds, written `312s`.
        case duration
        /// A share 0...1, written `3.5%`.
        case share
        /// A plain number (a log-normal's sigma), written with three decimals at most.
        case number(lowest: Double, highest: Double)
    }

    /// `visitors.app.patience.mean`.
    package var key: String
    package var kind: Kind
    /// The scenario's own value (nil when the key is absent: a share then starts at 0).
    package var original: Double?

    /// The value as the scenario would write it.
    package func text(_ value: Double) -> String {
        switch kind {
        case .duration: return "\(Int(value.rounded()))s"
        case .share:
            let percent = (value * 1000).rounded() / 10
            return (percent == percent.rounded() ? String(Int(percent)) : String(format: "%.1f", percent)) + "%"
        case .number: return SyntheticEvent.cell((value * 1000).rounded() / 1000)
        }
    }

    /// The coarse grid's values.
    package var coarse: [Double] {
        switch kind {
        case .duration:
            let centre = original ?? 300
            return [0.25, 0.5, 1, 2, 4].map { (centre * $0).rounded() }
        case .share: return [0, 0.05, 0.1, 0.2, 0.35]
        case .number(let lowest, let highest): return (0...4).map { lowest + (highest - lowest) * Double($0) / 4 }
        }
    }

    /// The neighbours of `value` at refinement `round` (0 first): a step that halves each round.
    package func neighbours(of value: Double, round: Int) -> [Double] {
        let shrink = pow(2, Double(round))
        switch kind {
        case .duration:
            let factor = pow(2, 0.5 / shrink)
            return [max(1, (value / factor).rounded()), (value * factor).rounded()]
        case .share:
            let step = 0.04 / shrink
            return [max(0, value - step), min(1, value + step)]
        case .number(let lowest, let highest):
            let step = (highest - lowest) / 8 / shrink
            return [max(lowest, value - step), min(highest, value + step)]
        }
    }

    /// The unknowns of a scenario, per group: the patience's mean (or log-normal median and
    /// sigma), the no-show share, and the comeback share when the group comes back.
    package static func knobs(of scenario: Scenario) -> [CalibrationKnob] {
        scenario.groups.flatMap { group -> [CalibrationKnob] in
            let prefix = "visitors.\(group.name)"
            var knobs: [CalibrationKnob] = []
            switch group.behaviour.patience {
            case .exponential(let mean):
                knobs.append(
                    CalibrationKnob(key: "\(prefix).patience.mean", kind: .duration, original: mean.secondsDouble))
            case .lognormal(let median, let sigma):
                knobs.append(
                    CalibrationKnob(
                        key: "\(prefix).patience.lognormal.median", kind: .duration, original: median.secondsDouble))
                knobs.append(
                    CalibrationKnob(
                        key: "\(prefix).patience.lognormal.sigma", kind: .number(lowest: 0.2, highest: 2),
                        original: sigma))
            case .fixed, .samples, nil:
                break
            }
            knobs.append(CalibrationKnob(key: "\(prefix).noShow", kind: .share, original: group.behaviour.noShow))
            if let comeback = group.behaviour.comeback {
                knobs.append(CalibrationKnob(key: "\(prefix).comeback.share", kind: .share, original: comeback.share))
            }
            return knobs
        }
    }
}
