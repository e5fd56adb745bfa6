import Foundation
import NIOCore
import NIOPosix

/// How a live run's connections are carried, chosen once before any of them: its event loops,
/// each with the way connections are made on it (`ConnectionFactory`). A loop and its factory
/// travel together, so nothing later asks a loop what it is, and a TLS endpoint never reaches
/// a loop that cannot carry it: the plain transport is only chosen when every endpoint is
/// plain HTTP, a pool never connects to an endpoint its factory does not carry, and an
/// `https` host met mid-run on a plain loop goes to its `tlsCarrier`.
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
        /// Where this loop's `https` hosts met mid-run are carried when its factory carries no
        /// TLS (the plain transport's: one of SwiftNIO's loops, `TLSSidePool`); nil when it does.
        var tlsCarrier: TLSSidePool.Carrier?

        /// One of SwiftNIO's loops (NIOPosix's) with SwiftNIO's connections; `requiresH2`: a
        /// TLS connection whose server does not agree to h2 fails (`client.http: h2`).
        /// `protocols`: where its TLS connections count what they spoke.
        static func swiftNIO(
            _ loop: any EventLoop, requiresH2: Bool = false, protocols: ConnectionProtocolTally? = nil
        ) -> Loop {
            Loop(eventLoop: loop) { NIOConnectionFactory(loop: loop, requiresH2: requiresH2, protocols: protocols) }
        }

        /// A factory for one pool on this loop. On `eventLoop` only: a factory is confined to it.
        func makeConnectionFactory() -> any ConnectionFactory {
            eventLoop.preconditionInEventLoop()
            return makeFactory()
        }
    }

    let kind: Kind
    let loops: [Loop]
    /// What the run's TLS connections spoke, by endpoint (run.json's
    /// `generator.protocols_by_endpoint`).
    let protocols: ConnectionProtocolTally
    /// The loops' group when the transport started them for the run (shut down with it); nil
    /// for SwiftNIO's shared loops, which outlive every run.
    private let ownedGroup: (any EventLoopGroup)?

    /// SwiftNIO's transport on `loops` (NIOPosix's loops: a bootstrap runs on nothing else).
    static func nio(_ loops: [any EventLoop], http: HTTPVersionChoice = .auto) -> LiveTransport {
        let protocols = ConnectionProtocolTally()
        return LiveTransport(
            kind: .nio,
            loops: loops.map { Loop.swiftNIO($0, requiresH2: http == .h2, protocols: protocols) },
            protocols: protocols, ownedGroup: nil)
    }

    /// What a run's TLS connections offer by ALPN for `client.http`: `auto` as the phones'
    /// stacks do (OkHttp's `DEFAULT_PROTOCOLS`, CFNetwork and the WebViews: `h2, http/1.1`),
    /// `h1` nothing (HTTP/1.1 without asking), `h2` only `h2`. Plain HTTP is HTTP/1.1 whatever
    /// the choice: no stack speaks h2 without TLS (h2c).
    static func applicationProtocols(for http: HTTPVersionChoice) -> [String] {
        switch http {
        case .auto: ["h2", "http/1.1"]
        case .h1: []
        case .h2: ["h2"]
        }
    }

    #if os(Linux)
        /// The plain transport on `group`'s loops; the transport owns the group from now on.
        /// An `https` host met mid-run goes to a side pool on one of SwiftNIO's loops, one per
        /// plain loop, spoken as `http` asks (`TLSSidePool`).
        static func plain(_ group: PlainEventLoopGroup, http: HTTPVersionChoice = .auto) -> LiveTransport {
            let protocols = ConnectionProtocolTally()
            var tlsLoops = MultiThreadedEventLoopGroup.singleton.makeIterator()
            let loops = group.loops.map { loop in
                var transportLoop = Loop(eventLoop: loop) { PlainConnectionFactory(loop: loop) }
                transportLoop.tlsCarrier = TLSSidePool.Carrier(
                    loop: tlsLoops.next() ?? MultiThreadedEventLoopGroup.singleton.next(), requiresH2: http == .h2,
                    protocols: protocols)
                return transportLoop
            }
            return LiveTransport(kind: .plain, loops: loops, protocols: protocols, ownedGroup: group)
        }
    #endif

    /// The run's transport on `count` loops: the plain one where it exists and can carry the
    /// run (`usesPlainTransport`), else SwiftNIO's shared loops (which the embedded room, when
    /// there is one, serves on too). Throws when the plain loops cannot start.
    static func forRun(
        loops count: Int, embeddedRoom: Bool, endpoints: [LiveEndpoint], http: HTTPVersionChoice = .auto,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> LiveTransport {
        #if os(Linux)
            if usesPlainTransport(embeddedRoom: embeddedRoom, endpoints: endpoints, environment: environment) {
                return .plain(try PlainEventLoopGroup(loops: count), http: http)
            }
        #endif
        return .nio(Array(MultiThreadedEventLoopGroup.singleton.makeIterator().prefix(count)), http: http)
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
