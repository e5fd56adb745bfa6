import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import QueueClientCore
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// A host no route names, met mid-run (issue 55, item 6): resolved as a phone resolves it,
/// reached at an endpoint made for it then, or failed as a phone fails a host that does not
/// resolve. The resolver is a stand-in (`StandInResolver`) except where `localhost` is looked
/// up in the machine's hosts file.
@Suite("hosts met mid-run", .serialized, .timeLimit(.minutes(1)))
struct MidRunHostsTests {
    static let targetURL = "https://acme.example/launch"

    /// The enqueue answer of a room whose queue page is at `queueOrigin` (`scheme://host[:port]`).
    static func enqueueAnswer(queueOrigin: String) -> StandInAnswer {
        let body = """
            {"QueueId":"q1","QueueUrl":"\(queueOrigin)/queue/acme/launch?q=q1",\
            "QueueUrlTTLInMinutes":30,"EventTargetUrl":"\(targetURL)","QueueitToken":null}
            """
        return StandInAnswer(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    /// A room answering every enqueue with a queue page at `queueOrigin`.
    static func room(queueOrigin: String) -> @Sendable (StandInRequest) -> StandInAnswer {
        { request in
            request.method == "POST" ? enqueueAnswer(queueOrigin: queueOrigin) : StandInAnswer(status: 404)
        }
    }

    /// A resolver that answers from a script and counts the lookups; `never` lookups are
    /// failed when the test is over (a promise NIO was given must complete).
    final class StandInResolver: HostNameResolver {
        enum Answer: Sendable {
            case address(String)
            case nxdomain
            case never
        }

        let answer: Answer
        private let state = Mutex<(lookups: [String], pending: [EventLoopPromise<[SocketAddress]>])>(([], []))

        init(_ answer: Answer) { self.answer = answer }

        var lookups: [String] { state.withLock { $0.lookups } }

        func addresses(of host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<[SocketAddress]> {
            state.withLock { $0.lookups.append(host) }
            switch answer {
            case .address(let ip):
                return loop.makeCompletedFuture { [try SocketAddress(ipAddress: ip, port: port)] }
            case .nxdomain:
                return loop.makeFailedFuture(HostResolutionError(description: "Name or service not known"))
            case .never:
                let promise = loop.makePromise(of: [SocketAddress].self)
                state.withLock { $0.pending.append(promise) }
                return promise.futureResult
            }
        }

        func release() {
            for promise in state.withLock({ $0.pending }) {
                promise.fail(HostResolutionError(description: "the test is over"))
            }
        }
    }

    /// `RunFixture.wall` with the run's hosts resolved by `policy`.
    static func wall(_ yaml: String, policy: MidRunHosts.Policy, label: String = #function) async throws
        -> RunReports
    {
        let run = try RunFixture.prepare(
            yaml, folder: try RunFixture.makeFolder(label), options: RunOptions(clock: .wall))
        var logger = Logger(label: "queuesim.test.room")
        logger.logLevel = .error
        var runner = WallClockRunner(
            run: run, progress: RunProgress(planned: run.summary.visitorCount), stopSignal: RunStopSignal(),
            logger: logger)
        runner.hostPolicy = policy
        return try RunReports(report: try await runner.execute())
    }

    static func generator(_ reports: RunReports) -> [String: Any] {
        reports.manifest["generator"] as? [String: Any] ?? [:]
    }

    @Test("a queue page on localhost, in no route, is resolved by the system and reached; run.json names it")
    func hostMetMidRunIsResolvedAndReached() async throws {
        try await ScriptedQueueItServer.with(script: { _ in HostRoutingRunTests.yourTurn }) { page in
            try await ScriptedQueueItServer.with(script: Self.room(queueOrigin: "http://localhost:\(page.port)")) {
                room in
                let reports = try await RunFixture.wall(
                    """
                    version: 1
                    name: midrun
                    target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(room.port)" }
                    client: { pollInterval: 200ms, maxWait: 20s }
                    arrivals: { phases: [ { burst: 3 } ] }
                    """)
                #expect(reports.outcomes == ["passed": 3], "\(reports.visitors.rows)")
                #expect(page.received.count == 3)
                #expect(page.received.allSatisfy { $0.host == "localhost:\(page.port)" }, "\(page.received)")
                #expect(!room.received.contains { $0.path.hasPrefix("/queue/") })
                let generator = Self.generator(reports)
                #expect(generator["resolved_hosts"] as? [String] == ["localhost:\(page.port)"], "\(generator)")
                #expect(generator["resolved_hosts_count"] as? Int == 1)
                // The connections line of report.html (and of the end screen, which shares it).
                let html = try String(contentsOfFile: reports.directory + "/report.html", encoding: .utf8)
                #expect(html.contains("; 1 host met mid-run resolved by DNS (localhost:\(page.port))"))
            }
        }
    }

    @Test("a host that does not resolve fails its visitor as a phone's connect failure, naming only the host")
    func unresolvedHostFailsTheVisitor() async throws {
        let resolver = StandInResolver(.nxdomain)
        try await ScriptedQueueItServer.with(script: Self.room(queueOrigin: "http://challenge.invalid")) { room in
            let reports = try await Self.wall(
                """
                version: 1
                name: nxdomain
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(room.port)" }
                client: { platform: ios, pollInterval: 200ms, maxWait: 20s }
                arrivals: { phases: [ { burst: 3 } ] }
                """, policy: MidRunHosts.Policy(resolver: resolver))
            #expect(reports.visitors.rows.count == 3)
            for row in reports.visitors.rows {
                #expect(row["outcome"] == "error", "\(row)")
                #expect(
                    row["error"]?.contains(
                        "could not connect: the host name challenge.invalid did not resolve (Name or service not known)"
                    ) == true, "\(row)")
                #expect(row["error"]?.contains("q=q1") == false)
            }
            // Once per host per run: the failure is remembered.
            #expect(resolver.lookups == ["challenge.invalid"])
            #expect(Self.generator(reports)["resolved_hosts"] == nil)
        }
    }

    @Test("a resolver that never answers is given up on at the deadline, in words")
    func silentResolverIsBoundedByTheDeadline() async throws {
        let resolver = StandInResolver(.never)
        defer { resolver.release() }
        try await ScriptedQueueItServer.with(script: Self.room(queueOrigin: "http://slow.invalid")) { room in
            let started = ContinuousClock.now
            let reports = try await Self.wall(
                """
                version: 1
                name: silent
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(room.port)" }
                client: { platform: ios, pollInterval: 200ms, maxWait: 20s }
                arrivals: { phases: [ { burst: 2 } ] }
                """, policy: MidRunHosts.Policy(resolver: resolver, deadline: .milliseconds(300)))
            #expect(ContinuousClock.now - started < .seconds(15))
            for row in reports.visitors.rows {
                #expect(row["outcome"] == "error", "\(row)")
                #expect(
                    row["error"]?.contains(
                        "could not connect: the host name slow.invalid did not resolve: no DNS answer within 0.3 s")
                        == true, "\(row)")
            }
            #expect(resolver.lookups == ["slow.invalid"])
        }
    }

    @Test("a device visitor's connection to a host met mid-run is its own, closed when it ends")
    func deviceConnectionsToAHostMetMidRunAreClosed() async throws {
        let resolver = StandInResolver(.address("127.0.0.1"))
        let answer = RawHTTPServer.answer(
            status: "302 Found",
            headers: ["Location: \(Self.targetURL)?queueittoken=\(HostRoutingRunTests.token(queueId: "q1"))"],
            body: "")
        try await RawHTTPServer.with(reply: { _ in .bytes(answer) }) { page in
            try await ScriptedQueueItServer.with(
                script: Self.room(queueOrigin: "http://pages.example:\(page.port)")
            ) { room in
                let reports = try await Self.wall(
                    """
                    version: 1
                    name: device
                    target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(room.port)" }
                    client: { connections: device, pollInterval: 200ms, maxWait: 20s }
                    arrivals: { phases: [ { burst: 2 } ] }
                    """, policy: MidRunHosts.Policy(resolver: resolver))
                #expect(reports.outcomes == ["passed": 2], "\(reports.visitors.rows)")
                // One connection per visitor's WebView, none shared.
                #expect(page.connectionsAccepted == 2)
                #expect(page.requestHeads.allSatisfy { $0.contains("\r\nHost: pages.example:\(page.port)") })
                #expect(Self.generator(reports)["resolved_hosts"] as? [String] == ["pages.example:\(page.port)"])
            }
        }
    }
}

extension MidRunHostsTests {
    @Test("an https host met mid-run: SNI, Host and the certificate's name are its own, trusting target.caFile")
    func httpsHostMetMidRunIsReachedByItsName() async throws {
        let fixtures = HostRoutingRunTests.fixtures
        // One caFile trusts both CAs: the room's (routes-ca) and the page's (private-ca).
        let folder = try RunFixture.makeFolder(#function)
        let caFile = folder + "/cas.pem"
        let cas =
            try String(contentsOfFile: fixtures + "/routes-ca.cert.pem", encoding: .utf8)
            + String(contentsOfFile: fixtures + "/private-ca.cert.pem", encoding: .utf8)
        try cas.write(toFile: caFile, atomically: true, encoding: .utf8)
        let (roomNames, pageNames) = (HostRoutingRunTests.ServerNames(), HostRoutingRunTests.ServerNames())
        let roomTLS = try HostRoutingRunTests.recordingTLS(
            certificate: "routes-server.cert.pem", key: "routes-server.key.pem", names: roomNames)
        let pageTLS = try HostRoutingRunTests.recordingTLS(
            certificate: "private-ca-server.cert.pem", key: "private-ca-server.key.pem", names: pageNames)
        let pass = RawHTTPServer.answer(
            status: "302 Found",
            headers: ["Location: \(Self.targetURL)?queueittoken=\(HostRoutingRunTests.token(queueId: "q1"))"],
            body: "")
        try await RawHTTPServer.with(tls: pageTLS, reply: { _ in .bytes(pass) }) { page in
            let answer = Self.enqueueAnswer(queueOrigin: "https://localhost:\(page.port)")
            let enqueue = RawHTTPServer.answer(headers: ["Content-Type: application/json"], body: answer.body)
            try await RawHTTPServer.with(tls: roomTLS, reply: { _ in .bytes(enqueue) }) { room in
                let reports = try await RunFixture.wall(
                    """
                    version: 1
                    name: midrun-tls
                    target:
                      customerId: acme
                      waitingRoomId: launch
                      endpoint: "https://127.0.0.1:\(room.port)"
                      caFile: "\(caFile)"
                    client: { pollInterval: 200ms, maxWait: 20s }
                    arrivals: { phases: [ { burst: 2 } ] }
                    """)
                #expect(reports.outcomes == ["passed": 2], "\(reports.visitors.rows)")
                #expect(page.requestsReceived == 2)
                #expect(page.requestHeads.allSatisfy { $0.contains("\r\nHost: localhost:\(page.port)") })
                #expect(!pageNames.all.isEmpty && pageNames.all.allSatisfy { $0 == "localhost" }, "\(pageNames.all)")
                let generator = Self.generator(reports)
                #expect(generator["resolved_hosts"] as? [String] == ["localhost:\(page.port)"])
                let endpoints = (generator["protocols_by_endpoint"] as? [[String: Any]] ?? []).compactMap {
                    $0["endpoint"] as? String
                }
                #expect(endpoints.contains("https://localhost:\(page.port)"), "\(endpoints)")
            }
        }
    }
}

extension MidRunHostsTests {
    /// A queue page answering every request with the visitor's turn, counting its connections
    /// closed, and how many were closed when each request came.
    final class ClosingCountServer: Sendable {
        let channel: any Channel
        let closedWhenAsked = Mutex<[Int]>([])
        let closed = Mutex(0)
        var port: Int { channel.localAddress?.port ?? 0 }

        init() async throws {
            let box = Box()
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { child in
                    child.closeFuture.whenComplete { _ in box.server?.closed.withLock { $0 += 1 } }
                    return child.pipeline.configureHTTPServerPipeline().flatMap {
                        child.pipeline.addHandler(Answerer(box: box))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            box.server = self
        }

        final class Box: @unchecked Sendable {
            weak var server: ClosingCountServer?
        }

        final class Answerer: ChannelInboundHandler, @unchecked Sendable {
            typealias InboundIn = HTTPServerRequestPart
            typealias OutboundOut = HTTPServerResponsePart
            let box: Box
            init(box: Box) { self.box = box }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                guard case .end = unwrapInboundIn(data), let server = box.server else { return }
                let closed = server.closed.withLock { $0 }
                server.closedWhenAsked.withLock { $0.append(closed) }
                let token = HostRoutingRunTests.token(queueId: "q1")
                var head = HTTPResponseHead(version: .http1_1, status: .found)
                head.headers.add(name: "Location", value: "\(MidRunHostsTests.targetURL)?queueittoken=\(token)")
                head.headers.add(name: "Content-Length", value: "0")
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }

    /// One loop (`concurrency: 1`), so the run's end cannot be what closes the first
    /// visitor's connection before the second arrives.
    @Test("an Android visitor's WebView connection to a host met mid-run closes when the visitor ends")
    func visitorsConnectionToAHostMetMidRunClosesAtItsEnd() async throws {
        let page = try await ClosingCountServer()
        defer { page.channel.close(promise: nil) }
        try await ScriptedQueueItServer.with(script: Self.room(queueOrigin: "http://pages.example:\(page.port)")) {
            room in
            let reports = try await Self.wall(
                """
                version: 1
                name: closes
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(room.port)" }
                client: { platform: android, connections: device, pollInterval: 200ms, maxWait: 20s }
                run: { concurrency: 1 }
                arrivals: { phases: [ { burst: 1 }, { pause: 1s }, { burst: 1 } ] }
                """, policy: MidRunHosts.Policy(resolver: StandInResolver(.address("127.0.0.1"))))
            #expect(reports.outcomes == ["passed": 2], "\(reports.visitors.rows)")
        }
        // The first visitor passed a second before the second asked: its connection was
        // closed then (Android's WebView keeps it while the visitor lasts), not at the run's end.
        #expect(page.closedWhenAsked.withLock { $0 } == [0, 1])
    }
}

/// `MidRunHosts` alone: one lookup per host, endpoints numbered after the run's, a bound on
/// how many.
@Suite("hosts met mid-run: the table")
struct MidRunHostsTableTests {
    static func ask(_ hosts: MidRunHosts, _ origin: MidRunHosts.Origin) async -> MidRunHosts.Answer {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return await withCheckedContinuation { continuation in
            let known = hosts.endpoint(for: origin, on: loop) { continuation.resume(returning: $0) }
            if let known { continuation.resume(returning: known) }
        }
    }

    @Test("endpoints follow the run's own; a host is looked up once for all its ports")
    func endpointsAreNumberedAfterTheRunsOwn() async throws {
        let resolver = MidRunHostsTests.StandInResolver(.address("127.0.0.1"))
        let hosts = MidRunHosts(
            policy: MidRunHosts.Policy(resolver: resolver), firstIndex: 3, caFile: nil, applicationProtocols: [])
        let first = try #require(MidRunHosts.Origin(scheme: "http", authority: "A.example:8080"))
        let second = try #require(MidRunHosts.Origin(scheme: "https", authority: "a.example"))
        #expect(await Self.ask(hosts, first) == .endpoint(3))
        #expect(await Self.ask(hosts, second) == .endpoint(4))
        #expect(await Self.ask(hosts, first) == .endpoint(3))
        #expect(resolver.lookups == ["a.example"])
        #expect(hosts.resolvedHosts == ["a.example:8080", "a.example:443"])
        #expect(hosts.origins == ["http://a.example:8080", "https://a.example"])
        let made = hosts.endpoints(from: 3, through: 4)
        #expect(made.map(\.authority) == ["a.example", "a.example"])
        #expect(made[1].serverHostname == "a.example" && made[1].tls != nil && made[0].tls == nil)
        #expect(made[0].address.port == 8080 && made[1].address.port == 443)
    }

    @Test("an origin is the URL's scheme, lowercased host and port, the scheme's default port left out")
    func originsAreParsed() throws {
        let named = try #require(MidRunHosts.Origin(scheme: "HTTPS", authority: "Pay.Example:8443"))
        #expect(named.target.origin == "https://pay.example:8443" && named.hostAndPort == "pay.example:8443")
        let defaulted = try #require(MidRunHosts.Origin(scheme: "http", authority: "pay.example:80"))
        #expect(defaulted.port == nil && defaulted.hostAndPort == "pay.example:80")
        let literal = try #require(MidRunHosts.Origin(scheme: "https", authority: "[::1]:9443"))
        #expect(literal.host == "[::1]" && literal.effectivePort == 9443)
        #expect(MidRunHosts.Origin(scheme: "ftp", authority: "pay.example") == nil)
        #expect(MidRunHosts.Origin(scheme: "https", authority: "") == nil)
    }

    @Test("an IPv6 literal is looked up without its brackets")
    func ipv6LiteralIsLookedUpBare() async throws {
        let resolver = MidRunHostsTests.StandInResolver(.address("::1"))
        let hosts = MidRunHosts(
            policy: MidRunHosts.Policy(resolver: resolver), firstIndex: 1, caFile: nil, applicationProtocols: [])
        #expect(await Self.ask(hosts, try #require(.init(scheme: "http", authority: "[::1]:8080"))) == .endpoint(1))
        #expect(resolver.lookups == ["::1"])
    }

    @Test("more hosts than spare endpoints: the request fails in words")
    func moreHostsThanSlotsFail() async throws {
        let hosts = MidRunHosts(
            policy: MidRunHosts.Policy(resolver: MidRunHostsTests.StandInResolver(.address("127.0.0.1"))),
            firstIndex: 255, caFile: nil, applicationProtocols: [])
        #expect(await Self.ask(hosts, try #require(.init(scheme: "http", authority: "one.example"))) == .endpoint(255))
        #expect(
            await Self.ask(hosts, try #require(.init(scheme: "http", authority: "two.example")))
                == .failed(
                    .connectFailed(
                        "no endpoint for the host name two.example: more than 1 hosts met mid-run (a run has at most 256 destinations)"
                    )))
    }
}
