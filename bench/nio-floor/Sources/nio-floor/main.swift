import Foundation
// The floor under bench/live-ceiling.sh: what SwiftNIO alone costs per request on this machine.
// 64 keep-alive connections to 127.0.0.1:PORT, each sending the SDK's enqueue request (the
// bytes queuesim sends) again as soon as the answer's Content-Length bytes are in; nothing is
// parsed beyond that. Prints the requests per second over SECONDS.
//
//   (cd bench/nio-floor && swift build -c release)
//   taskset -c 1 bench/nio-floor/.build/release/nio-floor SECONDS [PORT]
//
// Run it against live-ceiling.sh's nginx (PORT 18090); docs/benchmarks.md has the figures.
import NIOCore
import NIOPosix

// Minimal keep-alive HTTP/1.1 client: canned request, response framed by Content-Length.
let body =
    #"{"userId":"0b6f2a4e-5c1d-4e8a-9f3b-6d7e8f901234","userAgent":"queuesim/1 (virtual visitor)","sdkVersion":"iOS-3.5.2"}"#
let request =
    "POST /api/mobileapp/queue/acme/bench/enqueue HTTP/1.1\r\nHost: acme.queue-it.net\r\nAccept: application/json\r\nContent-Type: application/json\r\nUser-Agent: queuesim/1 (virtual visitor)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
// Touched only on the one event loop (and read through `submit`).
nonisolated(unsafe) var completed = 0
let arguments = CommandLine.arguments
guard arguments.count >= 2, let seconds = Int(arguments[1]), seconds > 0, seconds <= 600 else {
    print("usage: nio-floor SECONDS [PORT]")
    exit(2)
}
let port = arguments.count >= 3 ? Int(arguments[2]) ?? 18090 : 18090
final class H: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    var acc = 0
    var need = -1
    let req: ByteBuffer
    init() { req = ByteBuffer(string: request) }
    func channelActive(context: ChannelHandlerContext) { context.writeAndFlush(wrapOutboundOut(req), promise: nil) }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let b = unwrapInboundIn(data)
        if need < 0 {
            let s = String(buffer: b)
            if let r = s.range(of: "\r\n\r\n"), let cl = s.range(of: "Content-Length: ") {
                let n = Int(s[cl.upperBound...].prefix(while: { $0.isNumber }))!
                need = s.utf8.distance(from: s.startIndex, to: r.upperBound) + n
            }
        }
        acc += b.readableBytes
        while need > 0 && acc >= need {
            acc -= need
            completed += 1
            context.writeAndFlush(wrapOutboundOut(req), promise: nil)
        }
    }
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
for _ in 0..<64 {
    _ = try ClientBootstrap(group: loop).channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { ch in ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(H()) }
        }
        .connect(host: "127.0.0.1", port: port).wait()
}
let start = try loop.submit { completed }.wait()
Thread.sleep(forTimeInterval: Double(seconds))
let end = try loop.submit { completed }.wait()
print("requests/s:", (end - start) / seconds)
exit(0)
