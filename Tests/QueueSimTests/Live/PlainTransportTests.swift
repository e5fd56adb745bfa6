import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

#if os(Linux)
    /// The plain-HTTP transport of queuesim's own: its event loop (tasks, timers, shutdown) and
    /// the pool's connections on it against loopback stand-ins (answers in pieces, closes,
    /// refusals), with what the visitors would see.
    @Suite("Plain transport", .timeLimit(.minutes(1)))
    struct PlainTransportTests {
        /// Runs `body` with a one-loop group and shuts it down after.
        static func withLoop<T>(
            preciseWaits: Bool = true, _ body: (PlainEventLoop) async throws -> T
        ) async throws -> T {
            let group = try PlainEventLoopGroup(loops: 1, preciseWaits: preciseWaits)
            do {
                let value = try await body(group.loops[0])
                try await group.shutdownGracefully()
                return value
            } catch {
                try await group.shutdownGracefully()
                throw error
            }
        }

        @Test("tasks from another thread run on the loop, in the order they were submitted")
        func tasksInOrder() async throws {
            try await Self.withLoop { loop in
                #expect(!loop.inEventLoop)
                let seen = NIOLockedValueBox<[Int]>([])
                let onLoop = NIOLockedValueBox(true)
                for number in 0..<100 {
                    loop.execute {
                        if !loop.inEventLoop { onLoop.withLockedValue { $0 = false } }
                        seen.withLockedValue { $0.append(number) }
                    }
                }
                try await loop.submit {}.get()
                #expect(seen.withLockedValue { $0 } == Array(0..<100))
                #expect(onLoop.withLockedValue { $0 })
            }
        }

        @Test(
            "timers fire by deadline, not by when they were set, and never before it",
            arguments: [true, false])
        func timersByDeadline(preciseWaits: Bool) async throws {
            try await Self.withLoop(preciseWaits: preciseWaits) { loop in
                let fired = NIOLockedValueBox<[Int]>([])
                var futures: [EventLoopFuture<Bool>] = []
                for (number, milliseconds) in [(0, 30), (1, 10), (2, 20), (3, 10)] {
                    let deadline = NIODeadline.now() + .milliseconds(Int64(milliseconds))
                    futures.append(
                        loop.scheduleTask(deadline: deadline) {
                            fired.withLockedValue { $0.append(number) }
                            return NIODeadline.now() >= deadline
                        }.futureResult)
                }
                for future in futures {
                    let onTime = try await future.get()
                    #expect(onTime, "a timer fired before its deadline")
                }
                #expect(fired.withLockedValue { $0 } == [1, 3, 2, 0])
            }
        }

        @Test("a cancelled timer never runs and its future fails as cancelled; shutdown fails the rest")
        func cancelAndShutdown() async throws {
            let group = try PlainEventLoopGroup(loops: 1)
            let loop = group.loops[0]
            let ran = NIOLockedValueBox(false)
            let cancelled = loop.scheduleTask(in: .milliseconds(20)) { ran.withLockedValue { $0 = true } }
            cancelled.cancel()
            let pending = loop.scheduleTask(in: .seconds(60)) {}
            // Heard before the shutdown: a future's callbacks run on its loop, gone after it.
            let pendingError = NIOLockedValueBox<(any Error)?>(nil)
            pending.futureResult.whenFailure { error in pendingError.withLockedValue { $0 = error } }
            try await loop.scheduleTask(in: .milliseconds(50)) {}.futureResult.get()
            #expect(!ran.withLockedValue { $0 })
            await #expect(throws: EventLoopError.cancelled) { try await cancelled.futureResult.get() }
            try await group.shutdownGracefully()
            #expect(pendingError.withLockedValue { $0 } as? EventLoopError == .shutdown)
        }

        @Test("cancelled timers leave the heap once they are most of it; the others still fire")
        func cancelledTimersDropped() async throws {
            try await Self.withLoop { loop in
                let left = try await loop.submit { () -> Int in
                    var far: [Scheduled<Void>] = []
                    for _ in 0..<3000 { far.append(loop.scheduleTask(in: .seconds(60)) {}) }
                    for timer in far.prefix(2500) { timer.cancel() }
                    return loop.scheduledTimerCount
                }.get()
                // 500 live ones, and fewer than 1,024 cancelled ones not yet dropped.
                #expect(left >= 500 && left < 1524)
                try await loop.scheduleTask(in: .milliseconds(5)) {}.futureResult.get()
            }
        }

        /// An owner that records every result, and fulfils `done` once `expected` have come.
        final class Owner: LiveExchangeOwner {
            var results: [Result<IncomingResponse, TransportError>] = []
            let expected: Int
            let done: EventLoopPromise<[Result<IncomingResponse, TransportError>]>
            init(expected: Int, done: EventLoopPromise<[Result<IncomingResponse, TransportError>]>) {
                self.expected = expected
                self.done = done
            }
            func awaits(slot: Int, serial: UInt32) -> Bool { true }
            func exchangeCompleted(
                slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
                at now: RunInstant
            ) {
                results.append(result)
                if results.count == expected { done.succeed(results) }
            }
        }

        /// Sends `count` GETs one after another (each once the one before is answered) through a
        /// one-connection pool on a plain loop to 127.0.0.1:`port`; their results, and how many
        /// connections the pool opened.
        static func exchanges(
            _ count: Int, port: Int, on loop: PlainEventLoop, connectTimeout: Duration = .seconds(5),
            host: String = "127.0.0.1"
        ) async throws -> (results: [Result<IncomingResponse, TransportError>], opened: Int) {
            let endpoint = LiveEndpoint(
                address: try SocketAddress(ipAddress: host, port: port), authority: "127.0.0.1:\(port)",
                tls: nil, serverHostname: nil)
            let outcome = try await loop.flatSubmit {
                let pool = LiveConnectionPool(
                    connections: PlainConnectionFactory(loop: loop), endpoint: endpoint, limit: 1,
                    connectTimeout: connectTimeout)
                let owner = Owner(expected: count, done: loop.makePromise())
                pool.owner = owner
                for serial in 1...count {
                    pool.send(
                        LiveExchange(
                            slot: serial, serial: UInt32(serial),
                            request: OutgoingRequest(
                                head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/plain"))))
                }
                return owner.done.futureResult.assumeIsolated().map { results in
                    let opened = pool.connectionsOpened
                    pool.closeAll()
                    pool.owner = nil
                    return NIOLoopBound((results, opened), eventLoop: loop)
                }.nonisolated()
            }.get()
            return try await loop.submit { outcome.value }.get()
        }

        static func body(_ result: Result<IncomingResponse, TransportError>) -> String? {
            guard case .success(let response) = result else { return nil }
            return String(decoding: response.body, as: UTF8.self)
        }

        @Test("keep-alive: three answers over one connection, the socket's own")
        func keepAlive() async throws {
            try await RawHTTPServer.with(reply: { .bytes(RawHTTPServer.answer(body: "answer \($0)")) }) { server in
                let (results, opened) = try await Self.withLoop {
                    try await Self.exchanges(3, port: server.port, on: $0)
                }
                #expect(results.map(Self.body) == ["answer 1", "answer 2", "answer 3"])
                #expect(opened == 1)
                #expect(server.connectionsAccepted == 1)
            }
        }

        @Test("an IPv6 endpoint is reached over IPv6")
        func ipv6() async throws {
            try await RawHTTPServer.with(host: "::1", reply: { _ in .bytes(RawHTTPServer.answer(body: "six")) }) {
                server in
                let (results, _) = try await Self.withLoop {
                    try await Self.exchanges(1, port: server.port, on: $0, host: "::1")
                }
                #expect(results.map(Self.body) == ["six"])
                #expect(server.connectionsAccepted == 1)
            }
        }

        @Test("an answer that arrives a byte at a time is read whole")
        func trickled() async throws {
            let reply = RawHTTPServer.Reply.trickleBody(
                head: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", body: "slow answer!", interval: .milliseconds(2))
            try await RawHTTPServer.with(reply: { _ in reply }) { server in
                let (results, _) = try await Self.withLoop { try await Self.exchanges(1, port: server.port, on: $0) }
                #expect(results.map(Self.body) == ["slow answer!"])
            }
        }

        @Test("a server that closes after each answer: every request gets its own connection")
        func closedAfterAnswer() async throws {
            let reply = RawHTTPServer.Reply.bytes(
                RawHTTPServer.answer(headers: ["Connection: close"], body: "bye"), close: true)
            try await RawHTTPServer.with(reply: { _ in reply }) { server in
                let (results, opened) = try await Self.withLoop {
                    try await Self.exchanges(2, port: server.port, on: $0)
                }
                #expect(results.map(Self.body) == ["bye", "bye"])
                #expect(opened == 2)
                #expect(server.connectionsAccepted == 2)
            }
        }

        @Test("an answer without a length ends when the server closes; one cut short is a reset")
        func untilClose() async throws {
            try await RawHTTPServer.with(reply: { number in
                number == 1
                    ? .bytes("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end", close: true)
                    : .bytes("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\ncut", close: true)
            }) { server in
                let (results, _) = try await Self.withLoop { try await Self.exchanges(2, port: server.port, on: $0) }
                #expect(Self.body(results[0]) == "to the end")
                #expect(throws: TransportError.connectionReset) { try results[1].get() }
            }
        }

        @Test("a refused connection fails the exchange in the same words as SwiftNIO's transport")
        func refused() async throws {
            // A port just freed: nothing listens on it.
            let port = try await RawHTTPServer.with(reply: { _ in .bytes("") }) { $0.port }
            let (results, _) = try await Self.withLoop { try await Self.exchanges(1, port: port, on: $0) }
            #expect(throws: TransportError.connectFailed("Connection refused (errno 111)")) { try results[0].get() }
        }

        @Test("a connect that outlasts its bound fails the exchange as timed out")
        func connectTimeout() async throws {
            // A bound of a nanosecond: the loop's next round of timers, before it next waits for the
            // socket, finds it passed.
            try await RawHTTPServer.with(reply: { _ in .bytes(RawHTTPServer.answer(body: "late")) }) { server in
                let (results, _) = try await Self.withLoop {
                    try await Self.exchanges(1, port: server.port, on: $0, connectTimeout: .nanoseconds(1))
                }
                #expect(throws: TransportError.timedOut) { try results[0].get() }
            }
        }

        @Test(
            "plain runs use the transport of queuesim's own; the room, TLS and QUEUESIM_TRANSPORT=nio keep SwiftNIO's")
        func transportChoice() throws {
            let plain = LiveEndpoint(
                address: try SocketAddress(ipAddress: "127.0.0.1", port: 80), authority: "a", tls: nil,
                serverHostname: nil)
            let secure = LiveEndpoint(
                address: plain.address, authority: "b",
                tls: try NIOSSLContext(configuration: .makeClientConfiguration()),
                serverHostname: "b")
            #expect(LiveTransport.usesPlainTransport(embeddedRoom: false, endpoints: [plain], environment: [:]))
            #expect(!LiveTransport.usesPlainTransport(embeddedRoom: true, endpoints: [plain], environment: [:]))
            #expect(
                !LiveTransport.usesPlainTransport(embeddedRoom: false, endpoints: [plain, secure], environment: [:]))
            #expect(
                !LiveTransport.usesPlainTransport(
                    embeddedRoom: false, endpoints: [plain], environment: ["QUEUESIM_TRANSPORT": "nio"]))
        }
    }
#endif
