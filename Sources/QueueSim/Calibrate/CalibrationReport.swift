import Foundation

/// `DIR/calibration.json` and its words on the terminal.
///
/// `low`/`high` of a fitted value: the lowest and highest value of that unknown among the
/// candidates that scored within 5 % (relative) of the best — how flat the score is around it,
/// not a statistical confidence interval.
package struct CalibrationReport: Sendable {
    package struct Fitted: Sendable, Equatable {
        package var key: String
        package var value: String
        package var low: String
        package var high: String
    }

    package var fitted: [Fitted]
    package var scoreBefore: Double?
    package var scoreAfter: Double?
    package var runs: Int

    package static let nearBest = 0.05

    package init(knobs: [CalibrationKnob], outcome: Calibrator.Outcome) {
        let threshold = (outcome.scoreAfter ?? .infinity) * (1 + Self.nearBest)
        let near = outcome.tried.filter { ($0.score ?? .infinity) <= threshold }.map(\.values)
        fitted = knobs.enumerated().map { index, knob in
            let values = near.map { $0[index] } + [outcome.best[index]]
            return Fitted(
                key: knob.key, value: knob.text(outcome.best[index]), low: knob.text(values.min()!),
                high: knob.text(values.max()!))
        }
        scoreBefore = outcome.scoreBefore
        scoreAfter = outcome.scoreAfter
        runs = outcome.runs
    }

    package var json: String {
        func score(_ value: Double?) -> String {
            value.map { SyntheticEvent.cell(($0 * 1000).rounded() / 1000) } ?? "null"
        }
        func quoted(_ text: String) -> String {
            let data = try! JSONEncoder().encode(text)
            return String(decoding: data, as: UTF8.self)
        }
        let rows = fitted.map { item in
            "    { \"key\": \(quoted(item.key)), \"value\": \(quoted(item.value)), \"low\": \(quoted(item.low)), \"high\": \(quoted(item.high)) }"
        }
        return """
            {
              "fitted": [
            \(rows.joined(separator: ",\n"))
              ],
              "score_before": \(score(scoreBefore)),
              "score_after": \(score(scoreAfter)),
              "runs": \(runs)
            }

            """
    }

    /// What `calibrate` prints.
    package var text: String {
        func score(_ value: Double?) -> String { value.map { String(format: "%.2f %%", $0) } ?? "no minute scored" }
        var lines = ["fitted (value, range within 5 % of the best score):"]
        let width = fitted.map(\.key.count).max() ?? 0
        for item in fitted {
            lines.append(
                "  \(item.key.padding(toLength: width, withPad: " ", startingAt: 0))  \(item.value)  (\(item.low) – \(item.high))"
            )
        }
        lines.append("score before: \(score(scoreBefore)), after: \(score(scoreAfter)) (\(runs) virtual runs)")
        return lines.joined(separator: "\n")
    }
}
