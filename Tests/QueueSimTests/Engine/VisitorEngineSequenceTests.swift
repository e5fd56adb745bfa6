import QueueClientCore
import TestSeeds
import Testing

@testable import QueueSim

/// Hundreds of seeded event sequences fed to `VisitorEngine` (`EngineSequenceHarness`): in each,
/// answers, failures, timeouts, stale answers, give-ups, paced turns and a stop come in an order
/// a generator picks among the legal ones, and `EngineInvariants` checks after every event that
/// no visitor gets two rows, no request comes from a visitor with its row, started visitors are
/// finished or in flight, the requests counted are the requests handed over, no request goes
/// before its turn under the cap; and at the end that every visitor who arrived has one row.
@Suite("VisitorEngine: seeded event sequences against its invariants")
struct VisitorEngineSequenceTests {
    /// Eight visitors in two bursts, on a room that lets two through a second.
    static func scenario(seed: UInt64, visitors: String) -> String {
        """
        version: 1
        name: engine-sequences
        seed: \(seed)
        target: { customerId: acme, waitingRoomId: launch }
        client: { requestTimeout: 3s }
        arrivals: { phases: [ { burst: 4 }, { pause: 2s }, { burst: 4 } ] }
        \(visitors)
        waitingRoom: { outflow: 120/min }

        """
    }

    /// No behaviour; patience with comebacks; after-pass calls (visitors stay after their row).
    static let behaviours = [
        "",
        "visitors: [ { name: app, patience: { fixed: 4s }, comeback: { share: 50%, after: { fixed: 1s } } } ]",
        "visitors: [ { name: app, patience: { fixed: 6s }, afterPass: { calls: 2, thinkTime: { fixed: 500ms } } } ]",
    ]

    /// Runs sequence `seed`: its behaviour, clock kind, quota and cap drawn from the seed.
    static func runSequence(_ seed: UInt64) throws -> EngineInvariants {
        var draw = SplitMix64(seed: seed)
        let yaml = scenario(seed: seed, visitors: behaviours[draw.below(behaviours.count)])
        let run = try RunFixture.prepare(yaml, folder: try RunFixture.makeFolder("engine-sequence"))
        var harness = try EngineSequenceHarness(
            run: run, seed: seed &* 31, tracksRequestDeadlines: draw.below(4) != 0,
            quota: [1, 3, .max][draw.below(3)], pacer: draw.below(3) == 0 ? RequestPacer(perSecond: 4) : nil)
        try harness.run(steps: 600)
        return harness.invariants
    }

    @Test("300 seeded sequences: one row per visitor, no action after it, counts that add up, no early turn")
    func seededSequences() throws {
        for seed in UInt64(1)...300 {
            let invariants = try Self.runSequence(seed)
            #expect(invariants.violations.isEmpty, "sequence \(seed): \(invariants.violations.prefix(3))")
            if !invariants.violations.isEmpty { return }
        }
    }

    @Test("the sequences reach rows of every kind: passed, timed out, abandoned, stopped")
    func sequencesReachEveryOutcome() throws {
        var outcomes: Set<VisitorOutcome> = []
        for seed in UInt64(1)...300 {
            for row in try Self.runSequence(seed).rows.values { outcomes.insert(row.result.outcome) }
        }
        #expect(outcomes.isSuperset(of: [.passed, .error, .abandoned, .interrupted]), "\(outcomes)")
    }

    @Test("the invariants catch a second row, a request after a row and an early turn")
    func invariantsCanFail() throws {
        let run = try RunFixture.prepare(
            Self.scenario(seed: 1, visitors: ""), folder: try RunFixture.makeFolder("engine-invariants"))
        var engine = try VisitorEngine(
            plan: run.makePlan(), templates: run.groupTemplates, tracksRequestDeadlines: true,
            pacer: .own(RequestPacer(perSecond: 1)))
        var invariants = EngineInvariants(pacingInterval: .seconds(1))
        let owner: (Int) -> Int? = { _ in 0 }
        guard case .send(let order) = try engine.startNextArrival(at: .origin) else {
            Issue.record("the first arrival sent nothing")
            return
        }
        invariants.observe(.send(order), at: .origin, slotOwner: owner)
        #expect(invariants.violations.isEmpty)
        // A second request at once, without waiting for its turn.
        invariants.observe(.send(order), at: .origin + .milliseconds(10), slotOwner: owner)
        #expect(invariants.violations.count == 1)
        let row = FinishedVisitor(
            index: 0, arrival: .origin, groupIndex: 0,
            result: VisitorResult(outcome: .error, marks: VisitorMarks(started: .origin, ended: .origin)))
        invariants.observe(.finished(row), at: .origin + .seconds(2), slotOwner: owner)
        invariants.observe(.finished(row), at: .origin + .seconds(3), slotOwner: owner)
        #expect(invariants.violations.count == 2)
        invariants.observe(.send(order), at: .origin + .seconds(4), slotOwner: owner)
        #expect(invariants.violations.count == 3)
    }
}
