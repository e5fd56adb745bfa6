import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

#if os(Linux)
    /// Where `PlainEventLoop` departed from SwiftNIO's `EventLoop` contract (issue 54): which
    /// thread counts as the loop, work that arrives after shutdown, and the sockets a shutdown
    /// closes. Each test failed before the loop was fenced.
    @Suite("Plain event loop contract", .timeLimit(.minutes(1)))
    struct PlainEventLoopContractTests {
        @Test("a thread that comes after the loop's thread ended is never taken for the loop")
        func inEventLoopIsTheLoopsOwn() async throws {
            let group = try PlainEventLoopGroup(loops: 1)
            let loop = group.loops[0]
            #expect(try await loop.submit { loop.inEventLoop }.get())
            try await group.shutdownGracefully()
            // glibc hands a finished thread's `pthread_t` to the next thread it makes: compared by
            // thread id, one of these would pass for the loop.
            let takenForTheLoop = NIOLockedValueBox(0)
            for _ in 0..<16 {
                let done = DispatchSemaphore(value: 0)
                let thread = Thread {
                    if loop.inEventLoop { takenForTheLoop.withLockedValue { $0 += 1 } }
                    done.signal()
                }
                thread.start()
                done.wait()
            }
            #expect(takenForTheLoop.withLockedValue { $0 } == 0)
            #expect(!loop.inEventLoop)
        }

        @Test("work given to a loop that has shut down stops a debug build, as SwiftNIO's strict mode does")
        func workAfterShutdownIsLoud() async {
            // A trap (Swift's assertion, SIGILL on Linux), not an error thrown on the way there.
            await #expect(processExitsWith: .signal(SIGILL)) {
                let group = try PlainEventLoopGroup(loops: 1)
                try await group.shutdownGracefully()
                group.loops[0].execute {}
            }
        }

        /// Records what the pool reports, readable from any thread (the loop is gone by then).
        final class RecordingOwner: LiveExchangeOwner, Sendable {
            let results = NIOLockedValueBox<[Result<IncomingResponse, TransportError>]>([])
            func awaits(slot: Int, serial: UInt32) -> Bool { true }
            func exchangeCompleted(
                slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
                at now: RunInstant
            ) {
                results.withLockedValue { $0.append(result) }
            }
        }

        @Test("a shutdown tells an open connection's owner why its exchange ended")
        func shutdownTellsTheOwner() async throws {
            try await RawHTTPServer.with(reply: { _ in .stall("") }) { server in
                let group = try PlainEventLoopGroup(loops: 1)
                let loop = group.loops[0]
                let owner = RecordingOwner()
                let endpoint = LiveEndpoint(
                    address: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
                    authority: "127.0.0.1:\(server.port)", tls: nil, serverHostname: nil)
                try await loop.submit {
                    let pool = LiveConnectionPool(
                        connections: PlainConnectionFactory(loop: loop), endpoint: endpoint, limit: 1,
                        connectTimeout: .seconds(5))
                    pool.owner = owner
                    pool.send(
                        LiveExchange(
                            slot: 1, serial: 1,
                            request: OutgoingRequest(
                                head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/held"))))
                }.get()
                // The server has the request and answers nothing: only the shutdown can end it.
                for _ in 0..<200 where server.connectionsAccepted == 0 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(server.connectionsAccepted == 1)
                try await group.shutdownGracefully()
                let results = owner.results.withLockedValue { $0 }
                #expect(results.count == 1)
                #expect(results.first.map { (try? $0.get()) == nil } == true, "the held exchange should have failed")
                if case .failure(let error) = results.first {
                    #expect(error == LiveTransportErrors.map(EventLoopError.shutdown))
                }
            }
        }
    }
#endif
