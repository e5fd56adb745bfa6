import Foundation

/// The grid's answer refined (docs/sweep.md, "The answer"): the bracket bisection found
/// between the last value that failed and the first that met every goal, how much larger a
/// crowd the first passing value survives, and the fluid model's own value of the key.
package struct SweepRefinedAnswer: Sendable {
    package var key: String
    package var direction: SweepObjective.Direction
    /// The grid's answer (`answer` in sweep.json).
    package var grid: SweepValue
    /// The bracket: the last value that failed (nil when the grid's first value passed) and
    /// the first that met every goal in every seed.
    package var failing: SweepValue?
    package var passing: SweepValue
    package var precision: SweepPrecision
    /// The precision in the key's base unit at this answer.
    package var precisionSize: Double
    /// Bisection's probes, in the order run.
    package var probes: [Probe]
    /// The first goal's figure (the wait p95 without goals) at `passing`, over its seeds.
    package var headline: SweepMetric?
    package var headlineInterval: SweepInterval?
    /// `arrivals.scale` at the deciding point, which the margin multiplies.
    package var baseScale: Double
    package var margin: SweepMargin.Outcome?
    package var fluid: SweepValue?
    package var fluidGoal: String?
    /// What was not done, and why (`the margin was not measured: …`).
    package var notes: [String]

    package struct Probe: Sendable, Equatable {
        package var value: SweepValue
        package var passed: Bool
        package var runs: Int
    }

    /// The bracket reached the precision asked for (not cut short by a signal or a failure).
    package var withinPrecision: Bool {
        guard let failing else { return false }
        return abs(passing.magnitude - failing.magnitude) <= precisionSize * (1 + 1e-9)
    }

    /// `9,600–9,700/min`, the lower value first whichever way the sweep went.
    package var bracketText: String {
        guard let failing else { return SweepText.value(passing, key: key) }
        let (low, high) = failing.magnitude < passing.magnitude ? (failing, passing) : (passing, failing)
        let lowParsed = SweepUnit.parse(low.text)
        let highParsed = SweepUnit.parse(high.text)
        if let lowParsed, let highParsed, lowParsed.unit.suffix == highParsed.unit.suffix {
            return ScenarioUnits.grouped(lowParsed.number) + "–" + SweepText.value(high, key: key)
        }
        return SweepText.value(low, key: key) + "–" + SweepText.value(high, key: key)
    }

    /// What the sentence adds after the grid's answer:
    /// `; refined by bisection to 9,600–9,700/min (within 100/min; at 9,700/min: wait p95 9m58s,
    /// seeds do not vary this figure; survives a crowd 0.4 % larger; fluid model 9,500/min for
    /// wait.p95 < 10m)`.
    package var clause: String {
        var parts: [String] = []
        let opening: String
        if failing == nil {
            opening = "; not refined: the grid's first value already meets every goal, so the answer may lie beyond it"
        } else {
            let reach = withinPrecision ? "within \(precision.text)" : "not yet within \(precision.text)"
            opening = "; refined by bisection to \(bracketText)"
            parts.append(reach)
        }
        var atPassing = "at \(SweepText.value(passing, key: key))"
        if let headline, let interval = headlineInterval {
            atPassing += ": \(SweepText.metricName(headline)) \(SweepText.figure(interval.mean, headline.unit))"
            if let spread = interval.spread({ SweepText.figure($0, headline.unit) }) { atPassing += ", " + spread }
        }
        parts.append(atPassing)
        if let margin { parts.append(Self.marginWords(margin)) }
        if let fluid, let fluidGoal { parts.append("fluid model \(SweepText.value(fluid, key: key)) for \(fluidGoal)") }
        parts += notes
        return opening + " (" + parts.joined(separator: "; ") + ")"
    }

    /// `survives a crowd 0.4 % larger (0.5 % larger fails)`.
    static func marginWords(_ margin: SweepMargin.Outcome) -> String {
        func percent(_ factor: Double) -> String {
            SweepUnit.decimalText(((factor - 1) * 1000).rounded() / 10) + " %"
        }
        guard let failing = margin.failing else {
            return margin.stopped
                ? "survives a crowd \(percent(margin.surviving)) larger (larger crowds not tried)"
                : "survives a crowd \(percent(margin.surviving)) larger, the most tried"
        }
        if margin.surviving <= 1 { return "a crowd \(percent(failing)) larger fails a goal" }
        return "survives a crowd \(percent(margin.surviving)) larger (\(percent(failing)) larger fails)"
    }

    /// sweep.json's fields: `answer_bracket` per key `[last failing, first passing]` as the
    /// scenario writes values, `answer_margin` (the `arrivals.scale` at which a goal first
    /// failed, null when none did), `answer_fluid` per key, and how they were found.
    package var json: [String: Any] {
        let scale = { (factor: Double) -> Any in ((self.baseScale * factor) * 1e6).rounded() / 1e6 }
        var fields: [String: Any] = [
            "answer_bracket": [key: [failing.map(\.text) ?? NSNull(), passing.text] as [Any]],
            "answer_margin": margin?.failing.map(scale) ?? NSNull(),
            "answer_margin_surviving": margin.map { scale($0.surviving) } ?? NSNull(),
            "answer_fluid": fluid.map { [key: $0.text] } ?? NSNull(),
            "answer_fluid_goal": fluidGoal ?? NSNull(),
            "answer_precision": precision.text,
            "answer_within_precision": withinPrecision,
            "answer_probes": probes.map { probe -> [String: Any] in
                ["value": probe.value.text, "meets_goals": probe.passed, "runs": probe.runs]
            },
        ]
        if !notes.isEmpty { fields["answer_notes"] = notes }
        return fields
    }

    /// Fields for a sweep whose answer was not refined: the same keys, null.
    package static var absentJSON: [String: Any] {
        [
            "answer_bracket": NSNull(), "answer_margin": NSNull(), "answer_fluid": NSNull(),
        ]
    }
}
