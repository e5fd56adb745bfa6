// `arrivals.scale: 1.5`: the arrival plan multiplied, so "what does a crowd twice as big do?"
// is one `--set arrivals.scale=2` (or a sweep's axis) instead of an edited copy of the file.

extension Arrivals {
    /// The plan with every rate (`rate`, `rampTo`), every burst and `maxVisitors` multiplied by
    /// `scale`; durations and pauses stay, so the shape on the timeline is the same.
    ///
    /// A count is rounded to the nearest visitor, halves up (`burst: 5` × 1.5 → 8, × 0.5 → 3): the
    /// same rule as a steady phase's planned count. A burst that rounds to no visitor is left
    /// out (a burst takes no time, so nothing after it moves); a cap that rounds to 0 stays 1.
    package func scaled(by scale: Double) -> Arrivals {
        guard scale != 1 else { return self }
        var scaled = self
        scaled.scale = scale
        scaled.phases = phases.compactMap { phase in
            switch phase {
            case .steady(let duration, let rate, let rampTo):
                return .steady(duration: duration, rate: rate * scale, rampTo: rampTo.map { $0 * scale })
            case .burst(let count):
                let visitors = Self.scaledCount(count, by: scale)
                return visitors > 0 ? .burst(count: visitors) : nil
            case .pause:
                return phase
            }
        }
        scaled.maxVisitors = maxVisitors.map { max(1, Self.scaledCount($0, by: scale)) }
        return scaled
    }

    /// `count × scale` to the nearest whole visitor, halves up; saturates instead of trapping
    /// (the validator refuses the plan as too large afterwards).
    static func scaledCount(_ count: Int, by scale: Double) -> Int {
        let product = (Double(count) * scale).rounded(.toNearestOrAwayFromZero)
        return product >= Double(Int.max) ? Int.max : Int(product)
    }
}

extension ScenarioUnits {
    /// A factor as written: `2`, `1.5`, `0.001` (the shortest text that reads back as the
    /// same number; `grouped` would show 0.001 as 0).
    package static func factor(_ value: Double) -> String {
        let text = "\(value)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
