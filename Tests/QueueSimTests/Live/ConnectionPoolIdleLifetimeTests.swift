import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// How long the pool keeps idle connections open, on a virtual clock (the instants the events
/// carry): Android's abandoned enqueue connections are held for nobody until the server closes
/// them or OkHttp's pool would evict them; iOS's close after URLSession's idle time.
@Suite("Connection pool idle lifetimes")
struct ConnectionPoolIdleLifetimeTests {
    typealias Machine = ConnectionPoolStateMachine

    static let android = IdleLifetime(
        owner: ConnectionOwner(visitor: 1, role: .enqueue, endpoint: 0), platform: .android, oneUse: true)
    static let ios = IdleLifetime(
        owner: ConnectionOwner(visitor: 1, role: .enqueue, endpoint: 0), platform: .ios, oneUse: false)

    static func at(_ seconds: Double) -> RunInstant {
        RunInstant(wholeNanoseconds: Int64((seconds * 1e9).rounded()))
    }

    static func enqueue(
        visitor: Int, serial: UInt32, lifetime: IdleLifetime, oneUse: Bool, role: ConnectionRole = .enqueue
    ) -> LiveExchange {
        let exchange = LiveExchange(
            slot: visitor, serial: serial,
            request: OutgoingRequest(
                head: HTTPRequest(method: .post, scheme: "https", authority: "room", path: "/enqueue")),
            owner: ConnectionOwner(visitor: visitor, role: role, endpoint: 0), oneUse: oneUse)
        exchange.idleLifetime = lifetime
        return exchange
    }

    /// Sends `exchange` on a new connection and answers it at `seconds`; the connection's id.
    static func answer(_ exchange: LiveExchange, in machine: inout Machine, at seconds: Double) throws -> ConnectionID {
        let id = try #require(machine.requestQueued(exchange).connect.first)
        #expect(machine.connectionEstablished(id).execute?.exchange == exchange)
        let answered = machine.exchangeSucceeded(on: id, reusable: true, at: Self.at(seconds))
        #expect(answered.complete == .succeeded(exchange.id))
        #expect(answered.close == nil, "the answer leaves the connection open")
        return id
    }

    @Test("the lifetimes are the stacks': OkHttp's 5-minute eviction for Android's enqueue, URLSession's for iOS")
    func lifetimes() {
        #expect(Self.android == .abandonedAfterUse(.seconds(300)))
        #expect(Self.ios == .closesAfterIdle(IdleLifetime.urlSessionIdle))
        let webView = ConnectionOwner(visitor: 1, role: .webView, endpoint: 0)
        #expect(IdleLifetime(owner: webView, platform: .android, oneUse: false) == .whileVisitorLasts)
        #expect(IdleLifetime(owner: .shared, platform: .ios, oneUse: false) == .whileVisitorLasts)
    }

    @Test("Android: a finished attempt's connection stays open, idle, owned by nobody, and is never reused")
    func androidHeldNotReused() throws {
        var machine = Machine(limit: 10)
        let first = try Self.answer(
            Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 1)
        #expect(machine.heldCount == 1)
        #expect(machine.openCount == 1, "a held connection counts against the limit")
        // The next attempt builds a new client: a new connection.
        let retry = machine.requestQueued(Self.enqueue(visitor: 1, serial: 2, lifetime: Self.android, oneUse: true))
        #expect(retry.execute == nil)
        #expect(retry.connect.count == 1 && retry.connect.first != first)
        // Nor does another role of the same visitor ride it.
        let page = machine.requestQueued(
            Self.enqueue(visitor: 1, serial: 3, lifetime: .whileVisitorLasts, oneUse: false, role: .enqueue))
        #expect(page.execute == nil)
        // The visitor's end does not close it: it is no longer the visitor's.
        #expect(machine.visitorEnded([ConnectionOwner(visitor: 1, role: .enqueue, endpoint: 0)]).isEmpty)
        #expect(machine.heldCount == 1)
    }

    @Test("Android: a held connection closes when OkHttp's pool would evict it, 5 minutes after its answer")
    func androidEvictedAtFiveMinutes() throws {
        var machine = Machine(limit: 10)
        let id = try Self.answer(
            Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 10)
        #expect(machine.nextIdleDeadline == Self.at(310))
        #expect(machine.expireIdle(at: Self.at(309.999)).isEmpty)
        #expect(machine.heldCount == 1)
        #expect(machine.expireIdle(at: Self.at(310)) == [id])
        #expect(machine.heldCount == 0)
        #expect(machine.openCount == 1, "closing: counted until its channel is gone")
        #expect(machine.connectionClosed(id, error: .connectionReset, receivedResponseBytes: false) == .none)
        #expect(machine.openCount == 0)
        #expect(machine.expireIdle(at: Self.at(400)).isEmpty)
    }

    @Test("Android: a held connection the server closes first is gone at once; its deadline then closes nothing")
    func androidServerClosesFirst() throws {
        var machine = Machine(limit: 10)
        let id = try Self.answer(
            Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 0)
        // The server's own idle timeout (60 s, say).
        _ = machine.connectionClosed(id, error: .connectionReset, receivedResponseBytes: false)
        #expect(machine.heldCount == 0)
        #expect(machine.openCount == 0)
        // Its slot is used again by a new connection before the old deadline comes.
        let next = try Self.answer(
            Self.enqueue(visitor: 2, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 100)
        #expect(next.index == id.index && next != id)
        #expect(machine.expireIdle(at: Self.at(300)).isEmpty, "the first deadline is of a connection gone")
        #expect(machine.expireIdle(at: Self.at(400)) == [next])
    }

    @Test("Android: held connections take places under the limit; a server's close frees one for a waiter")
    func heldCountAgainstTheLimit() throws {
        var machine = Machine(limit: 1)
        let held = try Self.answer(
            Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 0)
        let waiting = machine.requestQueued(Self.enqueue(visitor: 2, serial: 1, lifetime: Self.android, oneUse: true))
        #expect(waiting.connect.isEmpty, "the limit is taken by the held connection")
        let freed = machine.connectionClosed(held, error: .connectionReset, receivedResponseBytes: false)
        #expect(freed.connect.count == 1)
    }

    @Test("iOS: an idle connection closes after URLSession's idle time; one used again in between does not")
    func iosIdleTimeout() throws {
        var machine = Machine(limit: 10)
        let bound = IdleLifetime.urlSessionIdle
        let enqueue = Self.enqueue(visitor: 1, serial: 1, lifetime: Self.ios, oneUse: false)
        let id = try Self.answer(enqueue, in: &machine, at: 5)
        #expect(machine.heldCount == 0, "an iOS connection stays its visitor's")
        // Used again after 10 s: its first idle spell's deadline no longer counts.
        let again = Self.enqueue(visitor: 1, serial: 2, lifetime: Self.ios, oneUse: false)
        #expect(machine.requestQueued(again).execute?.connection == id)
        _ = machine.exchangeSucceeded(on: id, reusable: true, at: Self.at(15))
        #expect(machine.expireIdle(at: Self.at(5) + bound).isEmpty)
        #expect(machine.expireIdle(at: Self.at(15) + bound - .milliseconds(1)).isEmpty)
        #expect(machine.expireIdle(at: Self.at(15) + bound) == [id])
        #expect(machine.openCount == 1)
        _ = machine.connectionClosed(id, error: .connectionReset, receivedResponseBytes: false)
        // The next request opens a new connection, as URLSession does after its idle close.
        let later = machine.requestQueued(Self.enqueue(visitor: 1, serial: 3, lifetime: Self.ios, oneUse: false))
        #expect(later.execute == nil)
        #expect(later.connect.count == 1)
    }

    @Test("the run's end closes every connection, held ones included, and forgets every deadline")
    func closeAllClosesHeld() throws {
        var machine = Machine(limit: 10)
        let held = try Self.answer(
            Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true), in: &machine, at: 0)
        let idle = try Self.answer(
            Self.enqueue(visitor: 2, serial: 1, lifetime: Self.ios, oneUse: false), in: &machine, at: 0)
        let action = machine.closeAll()
        #expect(Set(action.close) == [held, idle])
        #expect(machine.heldCount == 0)
        #expect(machine.nextIdleDeadline == nil)
        _ = machine.connectionClosed(held, error: .connectionReset, receivedResponseBytes: false)
        _ = machine.connectionClosed(idle, error: .connectionReset, receivedResponseBytes: false)
        #expect(machine.openCount == 0)
    }

    @Test("an Android answer that ends the connection (Connection: close) holds nothing")
    func notReusableHoldsNothing() throws {
        var machine = Machine(limit: 10)
        let call = Self.enqueue(visitor: 1, serial: 1, lifetime: Self.android, oneUse: true)
        let id = try #require(machine.requestQueued(call).connect.first)
        _ = machine.connectionEstablished(id)
        #expect(machine.exchangeSucceeded(on: id, reusable: false, at: Self.at(1)).close == id)
        #expect(machine.heldCount == 0)
        #expect(machine.openCount == 0)
    }
}
