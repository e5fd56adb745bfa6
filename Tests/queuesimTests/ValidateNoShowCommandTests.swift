import Foundation
import Testing

/// `validate` with no-shows (`noShow`): the estimate says how many pass and give up with them
/// counted, never silently as if everyone stayed.
@Suite("queuesim validate: the fluid estimate with no-shows", .timeLimit(.minutes(3)))
struct ValidateNoShowCommandTests {
    @Test func validateCountsTheNoShows() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            name: no-show-validate
            seed: 3
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 2s, maxWait: 2h }
            arrivals: { phases: [ { burst: 2000 } ] }
            visitors: [ { name: app, noShow: 10% } ]
            waitingRoom: { outflow: 600/min, latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
            """)
        let validate = try QueueSimProcess.run(["validate", file.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(
            validate.stdout.contains(
                "  estimate    fluid estimate (with no-shows 10%, turns wasted): about 90% pass, about 10% give up; "),
            "\(validate.stdout)")
    }
}
