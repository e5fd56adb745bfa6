/// The groups' `patience`, `comeback` and `afterPass`, and the draws they make: each from a
/// stream of `(seed, purpose, visitor index, attempt)`, so a visitor's patience, comeback and
/// think times do not depend on scheduling order, on the clock, or on other visitors.
struct VisitorBehaviourBook: Sendable {
    let seed: UInt64
    let groups: [VisitorBehaviour]

    /// Nil when no group has a behaviour: the engine then pays nothing for them.
    init?(scenario: Scenario) {
        guard scenario.groups.contains(where: { !$0.behaviour.isEmpty }) else { return nil }
        seed = scenario.seed
        groups = scenario.groups.map(\.behaviour)
    }

    init(seed: UInt64, groups: [VisitorBehaviour]) {
        self.seed = seed
        self.groups = groups
    }

    /// How long the visitor stays on the queue page in its attempt `attempt` (0: the first,
    /// then one per comeback); nil when its group has no patience.
    func patience(group: Int, visitor: Int, attempt: Int) -> Duration? {
        guard let patience = groups[group].patience else { return nil }
        var random = stream(.patience, visitor: visitor, attempt: attempt)
        return patience.draw(&random)
    }

    /// Whether the visitor is one of its group's `noShow` share: drawn once per visitor from a
    /// stream of its own, so adding `noShow` changes no other draw of any visitor.
    func isNoShow(group: Int, visitor: Int) -> Bool {
        guard let share = groups[group].noShow, share > 0 else { return false }
        var random = stream(.noShow, visitor: visitor, attempt: 0)
        return random.nextUnit() < share
    }

    /// After its `abandonment`-th give-up (0 first): when the visitor reopens the app, nil when
    /// it does not (not drawn into the share, or `comeback.max` reached).
    func comebackDelay(group: Int, visitor: Int, abandonment: Int) -> Duration? {
        guard let comeback = groups[group].comeback, abandonment < comeback.max else { return nil }
        var random = stream(.comeback, visitor: visitor, attempt: abandonment)
        guard random.nextUnit() < comeback.share else { return nil }
        return comeback.after.draw(&random)
    }

    /// The after-pass calls of a visitor who passed: how many, and the stream its think times
    /// come from; nil when its group has none, or the visitor is drawn a no-show.
    func afterPass(group: Int, visitor: Int) -> (calls: Int, random: SeededRandom)? {
        guard let afterPass = groups[group].afterPass, afterPass.calls > 0 else { return nil }
        var random = stream(.afterPass, visitor: visitor, attempt: 0)
        guard random.nextUnit() >= afterPass.noShow else { return nil }
        return (afterPass.calls, random)
    }

    /// The think time before a visitor's next after-pass call.
    func thinkTime(group: Int, random: inout SeededRandom) -> Duration {
        groups[group].afterPass!.thinkTime.draw(&random)
    }

    /// Attempts are at most `ScenarioValidator.mostComebacks` + 1 < 64: six bits keep every
    /// (visitor, attempt) pair's stream apart.
    private func stream(_ purpose: RandomPurpose, visitor: Int, attempt: Int) -> SeededRandom {
        SeededRandom(seed: seed, purpose: purpose, index: UInt64(visitor) << 6 | UInt64(attempt & 63))
    }
}
