import HTTPTypes
import NIOCore
import QueueClientCore
import Testing

@testable import QueueSim

/// The pool keeps the bootstraps it reuses, and their initializers must not keep the pool: a
/// pool that has connected is released once its owner is done with it and its connections are
/// closed (the reachability probe makes one per run, a test process many).
@Suite("Live connection pool: lifetime", .timeLimit(.minutes(1)))
struct LiveConnectionPoolLifetimeTests {
    /// What the test sees of the pool: weakly, and the answer's status.
    final class Watch {
        weak var pool: LiveConnectionPool?
        var status: Int?
    }

    @Test("a pool that connected is released once its connections are closed")
    func releasedAfterUse() async throws {
        try await LoopbackPoolFixture.withStandIn { loop, endpoint in
            let watch = try await loop.flatSubmit { () -> EventLoopFuture<NIOLoopBound<Watch>> in
                let watch = Watch()
                let (pool, owner) = LoopbackPoolFixture.poolSendingOne(on: loop, to: endpoint, path: "/lifetime")
                watch.pool = pool
                return owner.answered.futureResult.assumeIsolated().map { status in
                    withExtendedLifetime(owner) { pool.closeAll() }
                    watch.status = status
                    return NIOLoopBound(watch, eventLoop: loop)
                }.nonisolated()
            }.get()
            #expect(try await loop.submit { watch.value.status }.get() == 204)
            // The channel's close completes on the loop a moment later; bounded: 2 s at most.
            var released = false
            for _ in 0..<200 {
                released = try await loop.submit { watch.value.pool == nil }.get()
                if released { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(released, "the pool outlived its connections: something it keeps holds it")
        }
    }

    /// An owner that keeps its pool, as the loop driver does, and lets go of the pool's
    /// reference to it when done (`LoopDriver.complete`).
    final class Holder: LiveExchangeOwner {
        let answered: EventLoopPromise<Int>
        var pool: LiveConnectionPool?
        init(answered: EventLoopPromise<Int>) { self.answered = answered }
        func awaits(slot: Int, serial: UInt32) -> Bool { true }
        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
            at now: RunInstant
        ) {
            answered.completeWith(result.map(\.status.code).mapError { $0 as any Error })
        }
        func done() {
            pool?.closeAll()
            pool?.owner = nil
        }
    }

    final class HolderWatch {
        weak var holder: Holder?
        weak var pool: LiveConnectionPool?
    }

    @Test("a pool and an owner that keeps it are both released once the owner lets go")
    func ownerAndPoolReleased() async throws {
        try await LoopbackPoolFixture.withStandIn { loop, endpoint in
            let watch = try await loop.flatSubmit { () -> EventLoopFuture<NIOLoopBound<HolderWatch>> in
                let holder = Holder(answered: loop.makePromise())
                let pool = LiveConnectionPool(
                    connections: NIOConnectionFactory(loop: loop), endpoint: endpoint, limit: 1,
                    connectTimeout: .seconds(5))
                holder.pool = pool
                pool.owner = holder
                pool.send(
                    LiveExchange(
                        slot: 0, serial: 1,
                        request: OutgoingRequest(
                            head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/owner"))))
                let watch = HolderWatch()
                watch.holder = holder
                watch.pool = pool
                return holder.answered.futureResult.assumeIsolated().map { status in
                    #expect(status == 204)
                    holder.done()
                    return NIOLoopBound(watch, eventLoop: loop)
                }.nonisolated()
            }.get()
            var released = false
            for _ in 0..<200 {
                released = try await loop.submit { watch.value.holder == nil && watch.value.pool == nil }.get()
                if released { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(released, "the owner or its pool outlived the run: a reference cycle is left")
        }
    }
}
