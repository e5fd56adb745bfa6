/// `arrivals:` — the process and the phases, one after another.
extension ScenarioValidator {
    mutating func arrivals(_ raw: Positioned<RawArrivals>?) -> Arrivals? {
        guard let raw else {
            reportMissing(
                "arrivals", in: root, path: "arrivals",
                expected: "a mapping with `phases:`, e.g. - { duration: 30s, rate: 10 }")
            return nil
        }
        if let file = raw.value.replay { return replayArrivals(raw, file: file) }
        refuseReplayKeysWithoutReplay(raw.value)
        let process = choice(raw.value.process, key: "arrivals.process", default: ArrivalProcess.uniform)
        guard let rawPhases = raw.value.phases else {
            reportMissing(
                "phases", in: root["arrivals"], path: "arrivals.phases",
                expected: "a list such as - { duration: 30s, rate: 10 }")
            return nil
        }
        if rawPhases.elements.isEmpty, root["arrivals"]?["phases"]?.content == .sequence([]) {
            fail(
                "`arrivals.phases` needs at least one phase, such as - { duration: 30s, rate: 10 }", at: rawPhases.mark)
        }
        let problemsBefore = problems.count
        var phases: [ArrivalPhase] = []
        for (index, phase) in rawPhases.elements.enumerated() {
            if let parsed = self.phase(phase, key: "arrivals.phases[\(index)]") { phases.append(parsed) }
        }
        let maxVisitors = raw.value.maxVisitors?.value
        _ = arrivalCap(raw.value.maxVisitors)
        let scale = arrivalScale(raw.value.scale, phases: phases)
        guard problems.count == problemsBefore, !phases.isEmpty, let scale else { return nil }
        let arrivals = Arrivals(process: process, phases: phases, maxVisitors: maxVisitors).scaled(by: scale)
        let scaledBy = scale == 1 ? "" : " (× \(ScenarioUnits.factor(scale)) by `arrivals.scale`)"
        if arrivals.plannedDuration > ScenarioLimits.longestDuration {
            fail(
                "these phases last \(ScenarioUnits.describe(arrivals.plannedDuration)) in all; the arrival plan may last at most \(ScenarioLimits.longestDurationText)",
                at: rawPhases.mark)
            return nil
        }
        // Each phase is within range, so the sum is a finite Double; compared before any Int.
        let uncapped = arrivals.phases.reduce(0.0) { $0 + $1.expectedVisitors }
        if min(uncapped, Double(maxVisitors ?? .max)) > Double(ScenarioLimits.mostVisitors) {
            fail(
                "these phases plan about \(Int(uncapped.rounded())) visitors\(scaledBy); a run holds at most \(ScenarioLimits.mostVisitorsText) (lower the rates or set `arrivals.maxVisitors`)",
                at: rawPhases.mark)
            return nil
        }
        if arrivals.plannedVisitorCount == 0 {
            fail(
                "these phases bring no visitors\(scaledBy); give a phase a rate above 0 or a burst", at: rawPhases.mark)
            return nil
        }
        return arrivals
    }

    private mutating func phase(_ raw: Positioned<RawPhase>, key: String) -> ArrivalPhase? {
        let phase = raw.value
        let shape =
            "a phase is { duration: 30s, rate: 10 } (optionally with rampTo: 100), { burst: 500 } or { pause: 30s }"
        let kinds = [
            phase.burst != nil, phase.pause != nil, phase.duration != nil || phase.rate != nil || phase.rampTo != nil,
        ]
        if kinds.filter({ $0 }).count > 1 {
            fail("\(shape); this one mixes them", at: raw.mark)
            return nil
        }
        if let burst = phase.burst {
            guard burst.value >= 1, burst.value <= ScenarioLimits.mostVisitors else {
                fail(
                    "`\(key).burst` must be from 1 to \(ScenarioLimits.mostVisitorsText) visitors, found \(burst.value)",
                    at: burst.mark)
                return nil
            }
            return .burst(count: burst.value)
        }
        if let pause = phase.pause {
            return optionalDuration(pause, key: "\(key).pause", allowZero: false).map { .pause(duration: $0) }
        }
        guard phase.duration != nil, phase.rate != nil else {
            let missing = phase.duration == nil ? "duration" : "rate"
            fail("missing `\(missing)` in \(key); \(shape)", at: raw.mark)
            return nil
        }
        let duration = optionalDuration(phase.duration, key: "\(key).duration", allowZero: false)
        let rampTo = phase.rampTo.flatMap { rate($0, key: "\(key).rampTo", allowZero: true) }
        // A ramp may start from 0; a steady phase needs a rate.
        let startRate = rate(phase.rate, key: "\(key).rate", allowZero: phase.rampTo != nil)
        guard let duration, let startRate else { return nil }
        if startRate == 0, rampTo == 0, let node = phase.rampTo {
            fail("`\(key).rampTo` must be more than 0 when `rate` is 0, or the phase brings nobody", at: node.mark)
            return nil
        }
        return .steady(duration: duration, rate: startRate, rampTo: rampTo)
    }

    /// `arrivals.maxVisitors`: `.some(nil)` when absent, nil when out of range (reported).
    mutating func arrivalCap(_ cap: Positioned<Int>?) -> Int?? {
        guard let cap else { return .some(nil) }
        guard cap.value >= 1, cap.value <= ScenarioLimits.mostVisitors else {
            fail(
                "`arrivals.maxVisitors` must be from 1 to \(ScenarioLimits.mostVisitorsText), found \(cap.value)",
                at: cap.mark)
            return nil
        }
        return cap.value
    }

    /// `arrivals.scale`: a number or a percentage above 0 (`1.5`, `150%`), 1 when absent; nil
    /// when it is wrong. A scaled rate must stay within the rate limit.
    private mutating func arrivalScale(_ node: YamlNode?, phases: [ArrivalPhase]) -> Double? {
        guard let node, !node.isNull else { return 1 }
        let expected = "a factor above 0 such as 1.5 or 150%"
        guard let text = scalarText(node, key: "arrivals.scale", expected: expected) else { return nil }
        guard let scale = ScenarioUnits.fraction(text), scale > 0, scale <= ScenarioLimits.largestArrivalScale else {
            fail(
                "`arrivals.scale` must be \(expected), at most \(ScenarioUnits.grouped(ScenarioLimits.largestArrivalScale)), found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        let peak = Arrivals(phases: phases).peakRatePerSecond * scale
        if peak > ScenarioLimits.highestRate {
            fail(
                "`arrivals.scale: \(text)` makes the fastest phase \(ScenarioUnits.grouped(peak))/s; rates may be at most \(ScenarioLimits.highestRateText)",
                at: node.mark)
            return nil
        }
        return scale
    }
}
