extension ScenarioUnits {
    /// Whether the scenario key `key` holds a rate (`waitingRoom.outflow`,
    /// `arrivals.phases[0].rate`, `rampTo`, `run.maxRequestRate`): a bare number there is per
    /// second, so a value shown without its unit must say `/s`.
    package static func isRateKey(_ key: String) -> Bool {
        var last = key.split(separator: ".").last.map(String.init) ?? key
        if let bracket = last.firstIndex(of: "[") { last = String(last[..<bracket]) }
        return ["outflow", "rate", "rampTo", "maxRequestRate"].contains(last)
    }
}
