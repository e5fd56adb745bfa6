import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// The pool's decisions without a socket: events in, actions out.
@Suite("Connection pool state machine")
struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine

    static func exchange(
        _ slot: Int, serial: UInt32 = 1, owner: ConnectionOwner = .shared, oneUse: Bool = false
    ) -> LiveExchange {
        LiveExchange(
            slot: slot, serial: serial,
            request: OutgoingRequest(
                head: HTTPRequest(method: .get, scheme: "http", authority: "room", path: "/\(slot)")),
            owner: owner, oneUse: oneUse)
    }

    /// A machine with `count` established, idle connections.
    static func machine(limit: Int, idle count: Int) -> (Machine, [ConnectionID]) {
        var machine = Machine(limit: limit)
        let ids = machine.warm(count).connect
        for id in ids { #expect(machine.connectionEstablished(id) == .none) }
        return (machine, ids)
    }

    @Test("a request waits for a connection, then goes out on it")
    func connectThenExecute() throws {
        var machine = Machine(limit: 4)
        let first = Self.exchange(1)
        let queued = machine.requestQueued(first)
        #expect(queued.execute == nil)
        #expect(queued.connect.count == 1)
        let id = try #require(queued.connect.first)
        let established = machine.connectionEstablished(id)
        #expect(established.execute == Machine.Execution(exchange: first, connection: id, freshConnection: true))
        #expect(established.connect.isEmpty)
        #expect(machine.connection(carrying: first.id) == id)
        #expect(machine.connectionsOpened == 1)
    }

    @Test("waiters are served first come, first served, within the limit")
    func fifoWithinTheLimit() throws {
        var machine = Machine(limit: 2)
        var connects: [ConnectionID] = []
        for slot in 1...5 { connects += machine.requestQueued(Self.exchange(slot)).connect }
        #expect(connects.count == 2, "no more connections than the limit")
        #expect(machine.openCount == 2)
        var served: [Int] = []
        for id in connects {
            served.append(try #require(machine.connectionEstablished(id).execute).exchange.slot)
        }
        // Each answer frees a keep-alive connection for the oldest waiter.
        for _ in 0..<3 {
            let id = try #require(machine.connection(carrying: ExchangeID(slot: served[served.count - 2], serial: 1)))
            let action = machine.exchangeSucceeded(on: id, reusable: true)
            #expect(action.complete == .succeeded(Self.exchange(served[served.count - 2]).id))
            served.append(try #require(action.execute).exchange.slot)
            #expect(action.connect.isEmpty)
        }
        #expect(served == [1, 2, 3, 4, 5])
        #expect(machine.connectionsOpened == 2)
        #expect(machine.waitingCount == 0)
    }

    @Test("a failed connect fails the oldest waiter and tries again for the rest")
    func failedConnectFailsTheOldestWaiter() throws {
        var machine = Machine(limit: 1)
        let id = try #require(machine.requestQueued(Self.exchange(1)).connect.first)
        #expect(machine.requestQueued(Self.exchange(2)).connect.isEmpty)
        let failed = machine.connectFailed(id, error: .connectFailed("refused"))
        #expect(failed.complete == .failed(Self.exchange(1).id, .connectFailed("refused")))
        #expect(failed.connect.count == 1, "the next waiter gets a connect of its own")
        #expect(machine.openCount == 1)
        // The failed connection's later events are stale.
        #expect(machine.connectionEstablished(id) == .none)
    }

    @Test("a keep-alive connection closed before any answer byte resends its request once")
    func staleKeepAliveResendsOnce() throws {
        var (machine, ids) = Self.machine(limit: 1, idle: 1)
        let id = ids[0]
        _ = machine.requestQueued(Self.exchange(1, serial: 1))
        #expect(
            machine.exchangeSucceeded(on: id, reusable: true).complete == .succeeded(Self.exchange(1, serial: 1).id))
        let second = Self.exchange(1, serial: 2)
        #expect(machine.requestQueued(second).execute?.connection == id, "the connection is reused")
        let closed = machine.connectionClosed(id, error: .connectionReset, receivedResponseBytes: false)
        #expect(closed.complete == nil, "not failed: sent again")
        let again = try #require(closed.connect.first)
        // A separate exchange with the flag set: equal only if the machine set the flag on its own.
        let resent = Self.exchange(1, serial: 2)
        resent.resent = true
        let established = machine.connectionEstablished(again)
        #expect(established.execute == Machine.Execution(exchange: resent, connection: again, freshConnection: true))
        // The second close of the same request is the visitor's failure.
        let failed = machine.connectionClosed(again, error: .connectionReset, receivedResponseBytes: false)
        #expect(failed.complete == .failed(resent.id, .connectionReset))
        #expect(failed.connect.isEmpty)
    }

    @Test("no resend on a fresh connection or once answer bytes came")
    func noResendWhenTheServerAnswered() throws {
        var machine = Machine(limit: 1)
        let fresh = try #require(machine.requestQueued(Self.exchange(1)).connect.first)
        _ = machine.connectionEstablished(fresh)
        #expect(
            machine.connectionClosed(fresh, error: .connectionReset, receivedResponseBytes: false).complete
                == .failed(Self.exchange(1).id, .connectionReset))

        var (reused, ids) = Self.machine(limit: 1, idle: 1)
        _ = reused.requestQueued(Self.exchange(1, serial: 1))
        _ = reused.exchangeSucceeded(on: ids[0], reusable: true)
        _ = reused.requestQueued(Self.exchange(1, serial: 2))
        let cut = reused.connectionClosed(ids[0], error: .connectionReset, receivedResponseBytes: true)
        #expect(cut.complete == .failed(Self.exchange(1, serial: 2).id, .connectionReset))
    }

    @Test("an answer that ends the connection frees its place at once")
    func notReusable() throws {
        var (machine, ids) = Self.machine(limit: 1, idle: 1)
        _ = machine.requestQueued(Self.exchange(1))
        _ = machine.requestQueued(Self.exchange(2))
        let ended = machine.exchangeSucceeded(on: ids[0], reusable: false)
        #expect(ended.close == ids[0])
        #expect(ended.connect.count == 1, "the waiter does not wait for the close")
        #expect(machine.connectionClosed(ids[0], error: .connectionReset, receivedResponseBytes: false) == .none)
        #expect(machine.openCount == 1)
    }

    @Test("warming opens connections a batch at a time, within the limit")
    func warming() {
        var machine = Machine(limit: 40)
        #expect(machine.warm(100).connect.count == Machine.warmBatch)
        #expect(machine.warmStep().connect.count == 40 - Machine.warmBatch)
        #expect(machine.warmStep().connect.isEmpty, "the limit ends the warming")
        #expect(machine.connectionsOpened == 40)
        #expect(machine.requestQueued(Self.exchange(1)).connect.isEmpty, "a warming connection will serve it")
    }

    @Test("an aborted exchange: its connection is closed, or it leaves the queue")
    func abort() throws {
        var (machine, ids) = Self.machine(limit: 1, idle: 1)
        _ = machine.requestQueued(Self.exchange(1))
        _ = machine.requestQueued(Self.exchange(2))
        _ = machine.requestQueued(Self.exchange(3))
        #expect(machine.abortExchange(ExchangeID(slot: 2, serial: 1)) == .none)
        #expect(machine.abortExchange(ExchangeID(slot: 1, serial: 1)) == Machine.Action(close: ids[0]))
        #expect(machine.connection(carrying: ExchangeID(slot: 1, serial: 1)) == nil)
        let closed = machine.connectionClosed(ids[0], error: .connectionReset, receivedResponseBytes: false)
        #expect(closed.complete == nil, "an aborted exchange is not delivered")
        let next = try #require(closed.connect.first)
        #expect(machine.connectionEstablished(next).execute?.exchange == Self.exchange(3), "2 was dropped")
    }

    @Test("close all: connections closed, waiters and exchanges in flight failed")
    func closeAll() throws {
        var (machine, ids) = Self.machine(limit: 2, idle: 1)
        _ = machine.requestQueued(Self.exchange(1))
        let connecting = try #require(machine.requestQueued(Self.exchange(2)).connect.first)
        _ = machine.requestQueued(Self.exchange(3))
        let action = machine.closeAll()
        #expect(action.close == [ids[0]])
        #expect(action.fail.map(\.slot) == [2, 3, 1])
        #expect(machine.connectionEstablished(connecting) == Machine.Action(close: connecting))
        _ = machine.connectionClosed(connecting, error: .connectionReset, receivedResponseBytes: false)
        _ = machine.connectionClosed(ids[0], error: .connectionReset, receivedResponseBytes: false)
        #expect(machine.openCount == 0)
    }

    @Test("close all while connecting: a connect that then fails opens nothing more (no retry on a stopped loop)")
    func closeAllThenConnectFails() throws {
        var machine = Machine(limit: 2)
        let connecting = try #require(machine.requestQueued(Self.exchange(1)).connect.first)
        #expect(machine.closeAll().fail.map(\.slot) == [1])
        // Before the fix this asked for another connection, whose connect failed at once on
        // the stopping loop, and so on for ever.
        #expect(machine.connectFailed(connecting, error: .connectFailed("refused")) == .none)
        #expect(machine.openCount == 0)
        #expect(machine.requestQueued(Self.exchange(2)).connect.count == 1, "the pool's count is whole again")
    }

    @Test("an idle connection the server closed is not handed out")
    func idleClose() throws {
        var (machine, ids) = Self.machine(limit: 2, idle: 2)
        _ = machine.connectionClosed(ids[1], error: .connectionReset, receivedResponseBytes: false)
        #expect(machine.requestQueued(Self.exchange(1)).execute?.connection == ids[0])
        #expect(machine.openCount == 1)
    }

    @Test("a withdrawn exchange gives its connection to the next waiter")
    func withdrawn() throws {
        var (machine, ids) = Self.machine(limit: 1, idle: 1)
        _ = machine.requestQueued(Self.exchange(1))
        _ = machine.requestQueued(Self.exchange(2))
        #expect(machine.exchangeWithdrawn(on: ids[0]).execute?.exchange == Self.exchange(2))
    }

    @Test("an idle connection carries only its owner's exchanges")
    func owners() throws {
        let visitor = ConnectionOwner(visitor: 7, role: .enqueue, endpoint: 0)
        var (machine, ids) = Self.machine(limit: 4, idle: 1)
        let queued = machine.requestQueued(Self.exchange(7, owner: visitor))
        #expect(queued.execute == nil, "the shared idle connection is not the visitor's")
        let own = try #require(queued.connect.first)
        #expect(machine.connectionEstablished(own).execute?.exchange.owner == visitor)
        #expect(machine.requestQueued(Self.exchange(1)).execute?.connection == ids[0])
    }

    // MARK: - The device model: every visitor owns its connections

    static func device(_ visitor: Int, _ role: ConnectionRole = .webView) -> ConnectionOwner {
        ConnectionOwner(visitor: visitor, role: role, endpoint: 0)
    }

    @Test("device: no connection carries two visitors' requests; a visitor's own keep-alive is reused")
    func deviceOwnership() throws {
        var machine = Machine(limit: 100)
        let first = Self.exchange(1, serial: 1, owner: Self.device(1))
        let other = Self.exchange(2, serial: 1, owner: Self.device(2))
        let firstConnect = try #require(machine.requestQueued(first).connect.first)
        let otherConnect = try #require(machine.requestQueued(other).connect.first)
        #expect(firstConnect != otherConnect)
        // Established out of order: each goes to its own visitor, no head-of-line wait.
        let otherStarted = machine.connectionEstablished(otherConnect)
        #expect(
            otherStarted.execute == Machine.Execution(exchange: other, connection: otherConnect, freshConnection: true))
        let firstStarted = machine.connectionEstablished(firstConnect)
        #expect(firstStarted.execute?.exchange == first)
        #expect(machine.exchangeSucceeded(on: firstConnect, reusable: true).execute == nil)
        #expect(machine.exchangeSucceeded(on: otherConnect, reusable: true).execute == nil)
        // Visitor 1's next poll rides its own idle connection, not a fresh one.
        let poll = machine.requestQueued(Self.exchange(1, serial: 2, owner: Self.device(1)))
        #expect(poll.execute?.connection == firstConnect)
        #expect(poll.execute?.freshConnection == false)
        #expect(poll.connect.isEmpty)
        // Visitor 3 finds two idle connections and rides neither.
        let third = machine.requestQueued(Self.exchange(3, owner: Self.device(3)))
        #expect(third.execute == nil)
        #expect(third.connect.count == 1)
        #expect(machine.connectionsOpened == 3)
    }

    @Test("device: Android's enqueue calls each get a new connection, closed after the answer")
    func oneUseConnections() throws {
        var machine = Machine(limit: 100)
        var connections: [ConnectionID] = []
        for attempt in UInt32(1)...3 {
            let call = Self.exchange(1, serial: attempt, owner: Self.device(1, .enqueue), oneUse: true)
            let queued = machine.requestQueued(call)
            #expect(queued.execute == nil, "attempt \(attempt) rides no earlier connection")
            let id = try #require(queued.connect.first)
            #expect(machine.connectionEstablished(id).execute?.exchange == call)
            let answered = machine.exchangeSucceeded(on: id, reusable: true)
            #expect(answered.close == id, "the connection closes although the answer kept it alive")
            #expect(machine.connectionClosed(id, error: .connectionReset, receivedResponseBytes: false) == .none)
            connections.append(id)
        }
        #expect(machine.connectionsOpened == 3)
        #expect(machine.openCount == 0)
    }

    @Test("device: a visitor's end closes its idle connections; a connect nobody waits for is closed when made")
    func deviceEnd() throws {
        var machine = Machine(limit: 100)
        let enqueue = Self.exchange(1, serial: 1, owner: Self.device(1, .enqueue))
        let connection = try #require(machine.requestQueued(enqueue).connect.first)
        _ = machine.connectionEstablished(connection)
        _ = machine.exchangeSucceeded(on: connection, reusable: true)
        let page = Self.exchange(1, serial: 2, owner: Self.device(1, .webView))
        let pageConnection = try #require(machine.requestQueued(page).connect.first)
        // The page load times out while its connection is still being made.
        #expect(machine.abortExchange(page.id) == .none)
        #expect(machine.connectionEstablished(pageConnection) == Machine.Action(close: pageConnection))
        #expect(
            machine.visitorEnded([Self.device(1, .enqueue), Self.device(1, .webView), Self.device(1, .protectedApi)])
                == [connection])
        _ = machine.connectionClosed(connection, error: .connectionReset, receivedResponseBytes: false)
        _ = machine.connectionClosed(pageConnection, error: .connectionReset, receivedResponseBytes: false)
        #expect(machine.openCount == 0)
        #expect(machine.waitingCount == 0)
    }

    @Test("device: at the limit, visitors wait their turn for a connection, first come first served")
    func deviceLimit() throws {
        var machine = Machine(limit: 2)
        var connects: [ConnectionID] = []
        for visitor in 1...4 {
            connects += machine.requestQueued(Self.exchange(visitor, owner: Self.device(visitor))).connect
        }
        #expect(connects.count == 2)
        for id in connects { _ = machine.connectionEstablished(id) }
        // Visitor 1's answer ends its connection: visitor 3 (the first to wait) gets the place.
        let freed = machine.exchangeSucceeded(on: connects[0], reusable: false)
        let third = try #require(freed.connect.first)
        #expect(machine.connectionEstablished(third).execute?.exchange.slot == 3)
        let next = machine.exchangeSucceeded(on: connects[1], reusable: false)
        let fourth = try #require(next.connect.first)
        #expect(machine.connectionEstablished(fourth).execute?.exchange.slot == 4)
    }

    @Test("shared: a protected API's connections are its endpoint's, apart from the room's")
    func sharedEndpoints() throws {
        var (machine, ids) = Self.machine(limit: 4, idle: 1)
        let api = machine.requestQueued(Self.exchange(1, owner: .shared(endpoint: 1)))
        #expect(api.execute == nil, "the room's idle connection does not go to the API")
        let apiConnection = try #require(api.connect.first)
        #expect(machine.owner(of: apiConnection).endpoint == 1)
        #expect(machine.requestQueued(Self.exchange(2)).execute?.connection == ids[0])
    }

    @Test(
        "a connection opened ahead of need gives its handshake to nobody; one opened for a request gives it to that request"
    )
    func handshakeOwnership() throws {
        var machine = Machine(limit: 4)
        let warmed = try #require(machine.warm(1).connect.first)
        let waiter = Self.exchange(1)
        #expect(machine.requestQueued(waiter).connect.isEmpty, "the warming connection will serve it")
        let started = machine.connectionEstablished(warmed)
        #expect(started.execute == Machine.Execution(exchange: waiter, connection: warmed, freshConnection: false))
        let other = Self.exchange(2)
        let connect = try #require(machine.requestQueued(other).connect.first)
        #expect(machine.connectionEstablished(connect).execute?.freshConnection == true)
    }
}
