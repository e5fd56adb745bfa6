import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request as the stand-in received it.
package struct StandInRequest: Sendable {
    package var method: String
    package var uri: String
    package var headers: [(String, String)]
    package var body: String
    /// The client's port: which connection carried the request.
    package var clientPort = 0
    /// The client's address (`127.0.0.1`, or a source address the client bound).
    package var clientAddress = ""

    package var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }
    package var host: String? { header("Host") }

    /// The first field of that name, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// A string member of the JSON body (the enqueue call's `userId`, `enqueueKey`, …).
    package func bodyField(_ name: String) -> String? {
        guard let data = body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object[name] as? String
    }
}

package struct StandInAnswer: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: String

    package init(status: Int, headers: [(String, String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A stand-in for Queue-it's API and queue pages on 127.0.0.1 (an ephemeral port), answering
/// from a script and recording every request: the runner reaches it as
/// `endpoint: http://127.0.0.1:PORT`, the client core's transport through connect-to, exactly
/// as they would a real room.
package final class ScriptedQueueItServer: Sendable {
    private let channel: any Channel
    private let log: RequestLog
    package let port: Int

    package var received: [StandInRequest] { log.requests }

    private init(channel: any Channel, log: RequestLog) {
        self.channel = channel
        self.log = log
        port = channel.localAddress?.port ?? 0
    }

    package static func start(script: @escaping @Sendable (StandInRequest) -> StandInAnswer) async throws
        -> ScriptedQueueItServer
    {
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(
                        ScriptedHandler { request in
                            log.append(request)
                            return script(request)
                        })
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedQueueItServer(channel: channel, log: log)
    }

    package func shutdown() async throws { try await channel.close() }

    /// Runs `body` with a started server and always closes it.
    package static func with<T>(
        script: @escaping @Sendable (StandInRequest) -> StandInAnswer,
        _ body: (ScriptedQueueItServer) async throws -> T
    ) async throws -> T {
        let server = try await start(script: script)
        do {
            let value = try await body(server)
            try await server.shutdown()
            return value
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}

private final class RequestLog: Sendable {
    private let storage = Mutex<[StandInRequest]>([])
    func append(_ request: StandInRequest) { storage.withLock { $0.append(request) } }
    var requests: [StandInRequest] { storage.withLock { $0 } }
}

/// `@unchecked Sendable`: NIO calls a handler only on its channel's event loop, so the head
/// and body being gathered are never touched from two threads.
private final class ScriptedHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (StandInRequest) -> StandInAnswer
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(respond: @escaping @Sendable (StandInRequest) -> StandInAnswer) { self.respond = respond }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            var request = StandInRequest(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body.readString(length: body.readableBytes) ?? "")
            request.clientPort = context.channel.remoteAddress?.port ?? 0
            request.clientAddress = context.channel.remoteAddress?.ipAddress ?? ""
            let answer = respond(request)
            var headers = HTTPHeaders(answer.headers)
            headers.replaceOrAdd(name: "Content-Length", value: "\(answer.body.utf8.count)")
            let responseHead = HTTPResponseHead(
                version: head.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            self.head = nil
        }
    }
}
