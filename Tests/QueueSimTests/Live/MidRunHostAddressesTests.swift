import Foundation
import NIOCore
import QueueClientCore
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// A host met mid-run with more than one address (issue 55, item 6: "resolved as a phone
/// would"): a phone's stack goes on to the next address when one cannot be connected to; a
/// connect fails only when every address did, or the connect's timeout ran out.
@Suite("hosts met mid-run: every address DNS gave", .serialized, .timeLimit(.minutes(1)))
struct MidRunHostAddressesTests {
    /// Answers every lookup with `addresses`, in that order.
    struct Addresses: HostNameResolver {
        let addresses: [String]

        func addresses(of host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<[SocketAddress]> {
            loop.makeCompletedFuture { try addresses.map { try SocketAddress(ipAddress: $0, port: port) } }
        }
    }

    static func scenario(roomPort: Int) -> String {
        """
        version: 1
        name: addresses
        target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(roomPort)" }
        client: { platform: ios, pollInterval: 200ms, maxWait: 20s }
        arrivals: { phases: [ { burst: 3 } ] }
        """
    }

    /// A run whose room sends every visitor to a queue page on `pages.example`, which the
    /// resolver answers with `addresses`; the page server listens on 127.0.0.1 only.
    static func run(resolvingTo addresses: [String]) async throws -> (RunReports, [StandInRequest]) {
        try await ScriptedQueueItServer.with(script: { _ in HostRoutingRunTests.yourTurn }) { page in
            try await ScriptedQueueItServer.with(
                script: MidRunHostsTests.room(queueOrigin: "http://pages.example:\(page.port)")
            ) { room in
                let reports = try await MidRunHostsTests.wall(
                    Self.scenario(roomPort: room.port),
                    policy: MidRunHosts.Policy(resolver: Addresses(addresses: addresses)))
                return (reports, page.received)
            }
        }
    }

    @Test("the first address refuses, the second answers: every visitor passes, at the host it named")
    func aRefusedAddressGoesOnToTheNext() async throws {
        // 127.0.0.2, loopback too, refuses the page's port.
        let (reports, received) = try await Self.run(resolvingTo: ["127.0.0.2", "127.0.0.1"])
        #expect(reports.outcomes == ["passed": 3], "\(reports.visitors.rows)")
        #expect(received.count == 3)
        #expect(received.allSatisfy { $0.host?.hasPrefix("pages.example:") == true }, "\(received)")
    }

    @Test("every address refuses: the visitor fails as a phone's connect failure")
    func everyAddressRefusing() async throws {
        let (reports, received) = try await Self.run(resolvingTo: ["127.0.0.2", "127.0.0.3"])
        #expect(reports.visitors.rows.count == 3)
        for row in reports.visitors.rows {
            #expect(row["outcome"] == "error", "\(row)")
            #expect(row["error"]?.contains("could not connect") == true, "\(row)")
        }
        #expect(received.isEmpty)
    }
}
