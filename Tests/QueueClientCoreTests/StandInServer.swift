import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request as the stand-in server received it.
struct ReceivedRequest: Sendable {
    var method: String
    var uri: String
    var headers: [(String, String)]
    var body: String
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }
}

struct StandInResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: String = ""
}

/// A tiny stand-in for Queue-it's enqueue API and queue page, on 127.0.0.1 with an
/// ephemeral port, built on NIO's HTTP/1 server pipeline.
final class StandInServer: @unchecked Sendable {
    private let channel: Channel
    private let lock = NSLock()
    private var _received: [ReceivedRequest] = []
    let port: Int

    var received: [ReceivedRequest] { lock.withLock { _received } }

    private init(channel: Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    static func start(handler: @escaping @Sendable (ReceivedRequest) -> StandInResponse) async throws -> StandInServer {
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(
                        RequestHandler(respond: { request in
                            box.server?.record(request)
                            return handler(request)
                        }))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = StandInServer(channel: channel)
        box.server = server
        return server
    }

    private func record(_ request: ReceivedRequest) { lock.withLock { _received.append(request) } }

    func shutdown() async throws { try await channel.close() }
}

private final class ServerBox: @unchecked Sendable {
    weak var server: StandInServer?
}

private final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (ReceivedRequest) -> StandInResponse
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(respond: @escaping @Sendable (ReceivedRequest) -> StandInResponse) { self.respond = respond }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            let request = ReceivedRequest(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body.readString(length: body.readableBytes) ?? "")
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
