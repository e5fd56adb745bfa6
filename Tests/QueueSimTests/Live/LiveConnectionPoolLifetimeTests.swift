import NIOCore
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
}
