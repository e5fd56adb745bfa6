import QueueClientCore
import Testing

@testable import QueueSim

/// `connect_ms`/`tls_ms` are the first request's: a visitor's first answer settles them, with the
/// handshake of the connection opened for it or with none (a shared keep-alive connection).
@Suite("a visitor's first handshake")
struct FirstHandshakeTests {
    static func visitor(group: Int) -> InFlightVisitor {
        let configuration = VisitorConfiguration(
            group: VisitorGroupSettings(
                customerId: "acme", waitingRoomId: "launch", userAgent: "queuesim/1", sdkVersion: "iOS-3.5.2"),
            userId: "u-1")
        return InFlightVisitor(
            machine: VisitorMachine(configuration: configuration), index: 7, arrival: .origin, groupIndex: group)
    }

    static let opened = Handshake(connect: .milliseconds(3), tls: .milliseconds(9))

    @Test("a first answer on a connection it did not open settles with none; later handshakes are not the first's")
    func settledWithoutHandshake() {
        var visitor = Self.visitor(group: 5)
        #expect(!visitor.firstHandshake.settled)
        visitor.settleFirstHandshake(nil)
        #expect(visitor.firstHandshake.settled)
        #expect(visitor.firstHandshake.handshake == nil)
        visitor.settleFirstHandshake(Self.opened)
        visitor.behaviourSerial = 4
        #expect(visitor.firstHandshake.handshake == nil, "a later request's connection is not the first's")
        #expect(visitor.groupIndex == 5, "the flag leaves the group index alone")
        #expect(visitor.index == 7)
        #expect(visitor.behaviourSerial == 4)
    }

    @Test("a first answer on a connection opened for it keeps that handshake")
    func settledWithHandshake() {
        var visitor = Self.visitor(group: 2)
        visitor.settleFirstHandshake(Self.opened)
        visitor.settleFirstHandshake(Handshake(connect: .milliseconds(40), tls: nil))
        visitor.behaviourSerial = 1
        #expect(visitor.firstHandshake.handshake == Self.opened)
        #expect(visitor.groupIndex == 2)
    }
}
