import QueueClientCore

/// The platforms a group's visitors run as: `platform: ios`, or a mix such as
/// `platform: { ios: 60%, android: 40% }` (one group instead of a hand-made pair of groups per
/// platform). Each visitor of a mixed group gets one platform, drawn from the seed and its
/// index alone (`RandomPurpose.platformChoice`), so it never depends on scheduling.
package struct PlatformMix: Sendable, Equatable {
    package struct Share: Sendable, Equatable {
        package var platform: ClientPlatform
        /// A fraction of the group's visitors, in 0...1; the shares of a mix add up to 1.
        package var fraction: Double

        package init(_ platform: ClientPlatform, _ fraction: Double) {
            self.platform = platform
            self.fraction = fraction
        }
    }

    /// In the order written; never empty.
    package var shares: [Share]

    package init(shares: [Share]) {
        precondition(!shares.isEmpty, "a platform mix has at least one platform")
        self.shares = shares
    }

    /// Every visitor on one platform.
    package static func only(_ platform: ClientPlatform) -> PlatformMix {
        PlatformMix(shares: [Share(platform, 1)])
    }

    /// Whether the group's visitors differ in platform (a draw per visitor is needed).
    package var isMixed: Bool { shares.count > 1 }

    /// The platform of every visitor, when there is only one.
    package var single: ClientPlatform? { isMixed ? nil : shares[0].platform }

    /// The position in `shares` of visitor `index`'s platform. A group of one platform draws
    /// nothing, so its visitors' other draws (and a run's bytes) are the same as before mixes
    /// existed.
    package func shareIndex(forVisitor index: Int, seed: UInt64) -> Int {
        guard isMixed else { return 0 }
        var random = SeededRandom(seed: seed, purpose: .platformChoice, index: UInt64(index))
        let point = random.nextUnit()
        var end = 0.0
        for (position, share) in shares.enumerated() {
            end += share.fraction
            if point < end { return position }
        }
        // Shares add up to 1 within rounding; a point past the sum belongs to the last share
        // with any visitors.
        return shares.lastIndex(where: { $0.fraction > 0 }) ?? shares.count - 1
    }

    /// `ios`, or `ios 60%, android 40%`.
    package var description: String {
        guard isMixed else { return shares[0].platform.rawValue }
        return shares.map { "\($0.platform.rawValue) \(PercentText.of($0.fraction))" }.joined(
            separator: ", ")
    }
}
