import Testing

/// `validate` (and `run`, by the same preflight) refuses, exit 2, a plan whose Android enqueue
/// connections held open after their answers need more descriptors than the process may open.
@Suite("preflight: held Android connections")
struct HeldConnectionsPreflightCommandTests {
    @Test("10,000 Android attempts a second × 5 minutes assumed: refused with exit 2, saying why")
    func refusedWithExitTwo() throws {
        // 3,000,000 held connections: more than any hard descriptor limit of a CI machine.
        let file = try TemporaryScenario(
            """
            version: 1
            name: held
            target: { customerId: acme, waitingRoomId: launch, endpoint: "https://room.example" }
            client: { platform: android }
            arrivals: { phases: [ { duration: 5m, rate: 10000 } ] }
            visitors: [ { name: app } ]
            run: { concurrency: 1000 }
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(file.path + ":5:"), "the arrivals, not run.concurrency: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "and about 3000000 Android enqueue connections held open idle after their answers (OkHttp keeps each until the server closes it or 5 minutes pass; the server's idle timeout is not known ahead, so OkHttp's 5 minutes are assumed"
            ), "\(result.stderr)")
        #expect(result.stderr.contains("lower the Android arrival rate"))
        let ios = try TemporaryScenario(
            """
            version: 1
            name: held
            target: { customerId: acme, waitingRoomId: launch, endpoint: "https://room.example" }
            client: { platform: ios }
            arrivals: { phases: [ { duration: 5m, rate: 10000 } ] }
            visitors: [ { name: app } ]
            run: { concurrency: 1000 }
            """)
        #expect(try QueueSimProcess.run(["validate", ios.path]).status == 0, "iOS holds nothing for nobody")
    }
}
