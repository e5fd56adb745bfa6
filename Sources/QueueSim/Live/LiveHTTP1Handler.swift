import NIOCore
import NIOTLS
import QueueClientCore

/// A `LiveHTTP1Connection` on a SwiftNIO channel: TLS connections, and every connection of a
/// run with the embedded room (which shares SwiftNIO's loops with it).
final class LiveHTTP1Handler: LiveHTTP1Connection, ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    var channel: (any Channel)? { context?.channel }

    override func send(_ bytes: ByteBuffer) {
        context?.write(wrapOutboundOut(bytes), promise: nil)
    }

    override func flush() {
        context?.flush()
    }

    override func close() {
        context?.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { tlsHandshakeCompleted() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received(&bytes, at: clock.now)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        self.context = nil
    }
}
