/// Deterministic randomness for one purpose of one visitor (or one request).
///
/// Every random choice derives from `(seed, purpose, index)` so that a visitor's fate never
/// depends on scheduling order, and the same seed gives the same bytes in virtual time.
/// SplitMix64: tiny state, good statistical quality for simulation, trivially reproducible.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64, purpose: RandomPurpose, index: UInt64 = 0) {
        var mixed = SeededRandom.mix(seed ^ 0x9E37_79B9_7F4A_7C15)
        mixed = SeededRandom.mix(mixed ^ purpose.rawValue)
        mixed = SeededRandom.mix(mixed ^ index)
        state = mixed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// A double uniformly in [0, 1).
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Why a random stream exists. Distinct purposes give independent streams from one seed.
/// Raw values are fixed forever: changing one changes every seeded run's bytes.
package enum RandomPurpose: UInt64, Sendable {
    case arrivalJitter = 1
    case groupChoice = 2
    case feederRow = 3
    case userId = 4
    case preQueueShuffle = 5
    case faultInjection = 6
    case latency = 7
    case queueId = 8
    case feederShuffle = 9
    /// The platform of a visitor of a group that mixes platforms.
    case platformChoice = 10
    /// A visitor's patience on the queue page, per attempt (`VisitorBehaviourDraws`).
    case patience = 11
    /// Whether an abandoning visitor comes back, and after how long, per abandonment.
    case comeback = 12
    /// Whether a visitor who passed is a no-show, and its think times before each call.
    case afterPass = 13
    /// Whether a visitor of a group with `noShow` leaves its turn unused.
    case noShow = 14
}
