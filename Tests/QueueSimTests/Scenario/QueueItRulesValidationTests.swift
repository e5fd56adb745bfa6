import Testing

@testable import QueueSim

/// `waitingRoom.queueNumberValidity`, `maxRedirectsPerQueueId`, `uniqueKeys` and `safetyNet`:
/// what they read into, and each value outside Queue-it's range refused at its position.
@Suite("scenario: the room rules imported from a Queue-it event")
struct QueueItRulesValidationTests {
    let minimal = ScenarioTestSupport.minimal
    func problems(_ yaml: String) -> [String] { ScenarioTestSupport.problems(yaml) }

    @Test("each key reads into the room's settings; absent keys keep the room's old rules")
    func reads() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + """
                waitingRoom:
                  mode: safetynet
                  safetyNet: burst
                  queueNumberValidity: 10m
                  maxRedirectsPerQueueId: 5
                  inviteOnly: true
                  uniqueKeys: true

                """)
        let room = try #require(scenario.waitingRoom)
        #expect(room.safetyNet == .burst)
        #expect(room.queueNumberValidity == .seconds(600))
        #expect(room.maxRedirectsPerQueueId == 5)
        #expect(room.uniqueKeys)
        let plain = try ScenarioTestSupport.load(minimal + "waitingRoom: { mode: safetynet }\n").waitingRoom
        #expect(plain?.safetyNet == .normal)
        #expect(plain?.queueNumberValidity == nil)
        #expect(plain?.maxRedirectsPerQueueId == 3)
        #expect(plain?.uniqueKeys == false)
        // A mode fault to safetynet is enough for a variant.
        let flipped = try ScenarioTestSupport.load(
            minimal + "waitingRoom: { safetyNet: mixed, faults: [ { from: 1m, mode: safetynet } ] }\n")
        #expect(flipped.waitingRoom?.safetyNet == .mixed)
    }

    @Test("values outside Queue-it's ranges are refused at their line and column")
    func ranges() {
        #expect(
            problems(minimal + "waitingRoom: { queueNumberValidity: 90m }\n") == [
                "8:37: `waitingRoom.queueNumberValidity` must be from 5m to 60m (Queue-it's QueueNumberValidityInMinutes), found 90m"
            ])
        #expect(
            problems(minimal + "waitingRoom: { queueNumberValidity: 4m }\n") == [
                "8:37: `waitingRoom.queueNumberValidity` must be from 5m to 60m (Queue-it's QueueNumberValidityInMinutes), found 4m"
            ])
        #expect(
            problems(minimal + "waitingRoom: { queueNumberValidity: soon }\n") == [
                "8:37: `waitingRoom.queueNumberValidity` must be \(ScenarioValidator.durationHelp), found `soon`"
            ])
        #expect(
            problems(minimal + "waitingRoom: { maxRedirectsPerQueueId: 0 }\n") == [
                "8:40: `waitingRoom.maxRedirectsPerQueueId` must be a whole number from 1 to 20 (Queue-it's MaxNoOfRedirectsPrQueueId), found 0"
            ])
        #expect(
            problems(minimal + "waitingRoom: { maxRedirectsPerQueueId: 21 }\n") == [
                "8:40: `waitingRoom.maxRedirectsPerQueueId` must be a whole number from 1 to 20 (Queue-it's MaxNoOfRedirectsPrQueueId), found 21"
            ])
        #expect(
            problems(minimal + "waitingRoom: { mode: safetynet, safetyNet: bursty }\n") == [
                "8:44: `waitingRoom.safetyNet` must be one of normal, burst, mixed, found `bursty`; did you mean `burst`?"
            ])
    }

    /// A comeback enqueues again with the visitor's key, which `uniqueKeys` refuses: the sweep's
    /// fluid oracle (comebacks as an orbit) does not hold there, so it judges no such point.
    @Test("the sweep's theory does not judge a room with unique keys")
    func theoryLeavesUniqueKeysAlone() throws {
        let room = "waitingRoom: { outflow: 60/min, inviteOnly: true, uniqueKeys: UNIQUE }\n"
        let visitors =
            "visitors: [ { name: a, enqueueKey: k1, patience: { mean: 5m }, comeback: { share: 50%, after: { fixed: 1m } } } ]\n"
        let plain = try ScenarioTestSupport.load(
            minimal + visitors + room.replacingOccurrences(of: "UNIQUE", with: "false"))
        let unique = try ScenarioTestSupport.load(
            minimal + visitors + room.replacingOccurrences(of: "UNIQUE", with: "true"))
        #expect(TheoryOracle(scenario: plain) != nil)
        #expect(TheoryOracle(scenario: unique) == nil)
    }

    @Test("a rule that cannot apply says which key is missing")
    func missingCompanions() {
        #expect(
            problems(minimal + "waitingRoom: { uniqueKeys: true }\n") == [
                "8:28: `waitingRoom.uniqueKeys` only matters in an invite-only room; add `inviteOnly: true` and `enqueueKeys`"
            ])
        #expect(
            problems(minimal + "waitingRoom: { safetyNet: burst }\n") == [
                "8:27: `waitingRoom.safetyNet` only matters when the room is in safetynet mode; add `mode: safetynet` (or a mode fault to it)"
            ])
    }
}
