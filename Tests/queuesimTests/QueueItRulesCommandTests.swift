import Foundation
import Testing

/// `queuesim validate` with the room rules imported from a Queue-it event: the rules shown,
/// values outside Queue-it's ranges refused at their position with exit 2.
@Suite("queuesim validate: the room's Queue-it rules")
struct QueueItRulesCommandTests {
    static let head = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 10 } ] }

        """

    @Test func theRulesAreShownWhereTheyDifferFromTheDefaults() throws {
        let file = try TemporaryScenario(
            Self.head
                + "waitingRoom: { mode: safetynet, safetyNet: burst, queueNumberValidity: 10m, maxRedirectsPerQueueId: 5 }\n"
        )
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("safetyNet burst, queue numbers valid 10m, at most 5 redirects per queue id"),
            "\(result.stdout)")
    }

    @Test func valuesOutsideQueueItsRangesExitTwoWithTheirPosition() throws {
        let file = try TemporaryScenario(
            Self.head + "waitingRoom:\n  queueNumberValidity: 2h\n  maxRedirectsPerQueueId: 50\n  uniqueKeys: true\n")
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                \(file.path):5:24: `waitingRoom.queueNumberValidity` must be from 5m to 60m (Queue-it's QueueNumberValidityInMinutes), found 2h
                \(file.path):6:27: `waitingRoom.maxRedirectsPerQueueId` must be a whole number from 1 to 20 (Queue-it's MaxNoOfRedirectsPrQueueId), found 50
                \(file.path):7:15: `waitingRoom.uniqueKeys` only matters in an invite-only room; add `inviteOnly: true` and `enqueueKeys`

                """)
    }
}
