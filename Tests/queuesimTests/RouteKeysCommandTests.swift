import Foundation
import Testing

/// `validate` on the keys of names and routes: `client.http`, `target.hosts`, and the warning
/// before a live run against a real Queue-it room that is not a test event.
@Suite("validate: client.http, target.hosts, a real room that is not a test")
struct RouteKeysCommandTests {
    static func scenario(target: String, extra: String = "") -> String {
        """
        version: 1
        name: routes
        clock: wall
        target: \(target)
        arrivals: { phases: [ { burst: 5 } ] }
        \(extra)
        """
    }

    @Test func badValuesAreRefusedAtTheirPositionsWithExitTwo() throws {
        let file = try TemporaryScenario(
            Self.scenario(
                target:
                    #"{ customerId: acme, waitingRoomId: launch, hosts: { "https://x.example": "http://127.0.0.1" } }"#,
                extra: "client: { http: h3 }"))
        let result = try QueueSimProcess.run(["validate", "--quiet", file.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(file.path):4:61: `target.hosts`: \"https://x.example\" is not a host name; write the host alone (no scheme, port or path), such as challenge.example.com"
            ), "\(result.stderr)")
        #expect(
            result.stderr.contains("\(file.path):6:17: `client.http` must be one of auto, h1, h2, found `h3`"),
            "\(result.stderr)")
    }

    @Test func aLiveRunAgainstARealRoomThatIsNotATestIsWarnedOf() throws {
        let real = #"{ customerId: acme, waitingRoomId: launch, endpoint: "https://acme.queue-it.net" }"#
        let file = try TemporaryScenario(Self.scenario(target: real))
        let result = try QueueSimProcess.run(["validate", "--quiet", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "\(file.path):4:1: warning: the room's requests go to Queue-it's real acme.queue-it.net and nothing says it is a test event (`target.isTest: true`, the Admin API's IsTest): a live run makes real enqueues in that waiting room's queue, seen by its real visitors and counted in its statistics; point `target.endpoint` at a test event's room, or set `target.isTest: true` if this one is\n"
        )
        let production = try TemporaryScenario(
            Self.scenario(target: real.replacingOccurrences(of: " }", with: ", isTest: false }")))
        let said = try QueueSimProcess.run(["validate", "--quiet", production.path])
        #expect(said.status == 0)
        #expect(said.stderr.contains("`target.isTest: false` says it is a production event"), "\(said.stderr)")
    }

    @Test func aTestEventOrAStagingHostIsNotWarnedOf() throws {
        let real = #"{ customerId: acme, waitingRoomId: launch, endpoint: "https://acme.queue-it.net" }"#
        for text in [
            Self.scenario(target: real.replacingOccurrences(of: " }", with: ", isTest: true }")),
            Self.scenario(target: real.replacingOccurrences(of: "acme.queue-it.net", with: "acme.test.queue-it.net")),
            Self.scenario(target: real.replacingOccurrences(of: "acme.queue-it.net", with: "staging.shop.example")),
        ] {
            let file = try TemporaryScenario(text)
            let result = try QueueSimProcess.run(["validate", "--quiet", file.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(text)\n\(result.stderr)")
        }
    }

    @Test func validateSaysWhereEachHostConnects() throws {
        let file = try TemporaryScenario(
            Self.scenario(
                target:
                    #"{ customerId: acme, waitingRoomId: launch, hosts: { challenge.example.com: "https://127.0.0.1:8443", b.example: "http://10.0.0.5" } }"#
            ))
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "  hosts       challenge.example.com connects to https://127.0.0.1:8443\n              b.example connects to http://10.0.0.5\n"
            ), "\(result.stdout)")
    }
}
