import Foundation
import NIOCore
import NIOPosix

/// How a live run's connections are carried, chosen once before any of them: its event loops,
/// each with the way connections are made on it (`ConnectionFactory`). A loop and its factory
/// travel together, so nothing later asks a loop what it is, and a TLS endpoint never reaches
/// a loop that cannot carry it: the plain transport is only chosen when every endpoint is
/// plain HTTP, and a pool refuses an endpoint its factory does not carry.
struct LiveTransport: Sendable {
    enum Kind: String, Sendable {
        /// SwiftNIO's channels on its own loops: plain and TLS, on every platform.
        case nio
        /// Sockets on queuesim's own epoll loops (`PlainEventLoop`): plain HTTP, Linux only.
        case plain
    }

    /// One loop of the run and how its connections are made.
    struct Loop: Sendable {
        let eventLoop: any EventLoop
        fileprivate let makeFactory: @Sendable () -> any ConnectionFactory

        /// One of SwiftNIO's loops (NIOPosix's) with SwiftNIO's connections.
        static func swiftNIO(_ loop: any EventLoop) -> Loop {
            Loop(eventLoop: loop) { NIOConnectionFactory(loop: loop) }
        }

        /// A factory for one pool on this loop. On `eventLoop` only: a factory is confined to it.
        func makeConnectionFactory() -> any ConnectionFactory {
            eventLoop.preconditionInEventLoop()
            return makeFactory()
        }
    }

    let kind: Kind
    let loops: [Loop]
    /// The loops' group when the transport started them for the run (shut down with it); nil
    /// for SwiftNIO's shared loops, which outlive every run.
    private let ownedGroup: (any EventLoopGroup)?

    /// SwiftNIO's transport on `loops` (NIOPosix's loops: a bootstrap runs on nothing else).
    static func nio(_ loops: [any EventLoop]) -> LiveTransport {
        LiveTransport(
            kind: .nio,
            loops: loops.map(Loop.swiftNIO),
            ownedGroup: nil)
    }

    #if os(Linux)
        /// The plain transport on `group`'s loops; the transport owns the group from now on.
        static func plain(_ group: PlainEventLoopGroup) -> LiveTransport {
            LiveTransport(
                kind: .plain,
                loops: group.loops.map { loop in Loop(eventLoop: loop) { PlainConnectionFactory(loop: loop) } },
                ownedGroup: group)
        }
    #endif

    /// The run's transport on `count` loops: the plain one where it exists and can carry the
    /// run (`usesPlainTransport`), else SwiftNIO's shared loops (which the embedded room, when
    /// there is one, serves on too). Throws when the plain loops cannot start.
    static func forRun(
        loops count: Int, embeddedRoom: Bool, endpoints: [LiveEndpoint],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> LiveTransport {
        #if os(Linux)
            if usesPlainTransport(embeddedRoom: embeddedRoom, endpoints: endpoints, environment: environment) {
                return .plain(try PlainEventLoopGroup(loops: count))
            }
        #endif
        return .nio(Array(MultiThreadedEventLoopGroup.singleton.makeIterator().prefix(count)))
    }

    /// Whether a run's connections are sockets on loops of queuesim's own rather than SwiftNIO
    /// channels: on Linux, when every endpoint is plain HTTP and the room is not embedded (the
    /// embedded room serves on SwiftNIO's loops, and its visitors share those threads with it,
    /// one per core). `QUEUESIM_TRANSPORT=nio` keeps SwiftNIO's for a run (the benchmarks'
    /// reference). Elsewhere never: the plain transport exists on Linux only.
    static func usesPlainTransport(
        embeddedRoom: Bool, endpoints: [LiveEndpoint],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        #if os(Linux)
            !embeddedRoom && endpoints.allSatisfy { $0.tls == nil } && environment["QUEUESIM_TRANSPORT"] != "nio"
        #else
            false
        #endif
    }

    /// Lets the loops the transport started end (not awaited: their threads end on their own
    /// once their last tick is over). SwiftNIO's shared loops stay.
    func shutDown() {
        ownedGroup?.shutdownGracefully { _ in }
    }
}
