import Foundation
import QueueClientCore

// The scenario model (Scenario.swift): how visitors arrive (`arrivals:`).

package enum ArrivalProcess: String, Sendable, Equatable, CaseIterable {
    /// Evenly spaced arrivals.
    case uniform
    /// Exponential gaps (seeded).
    case poisson
}

package enum ArrivalPhase: Sendable, Equatable {
    /// `{ duration, rate, rampTo? }`: `rate` per second, ramping linearly to `rampTo` if given.
    case steady(duration: Duration, rate: Double, rampTo: Double?)
    /// `{ burst: N }`: N visitors at once, at this point of the timeline.
    case burst(count: Int)
    /// `{ pause: 30s }`: no arrivals for a while (an extension of the contract).
    case pause(duration: Duration)
}

package struct Arrivals: Sendable, Equatable {
    package var process: ArrivalProcess
    package var phases: [ArrivalPhase]
    package var maxVisitors: Int?
    /// `arrivals.scale`: the factor the phases and `maxVisitors` were multiplied by
    /// (ArrivalScale.swift); 1 when the file does not set it.
    package var scale: Double = 1
    /// `arrivals: { replay: FILE, … }`: the file the phases were read from (ReplayArrivals.swift);
    /// nil for typed phases.
    package var replay: ArrivalReplay?

    package init(process: ArrivalProcess = .uniform, phases: [ArrivalPhase], maxVisitors: Int? = nil) {
        self.process = process
        self.phases = phases
        self.maxVisitors = maxVisitors
    }
}
