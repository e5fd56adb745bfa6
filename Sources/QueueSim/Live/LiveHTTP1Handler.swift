import NIOCore
import NIOTLS
import QueueClientCore

/// An HTTP/1.1 connection on a SwiftNIO channel (`NIOConnectionFactory`): TLS connections, and
/// every connection of a run with the embedded room (which shares SwiftNIO's loops with it).
final class LiveHTTP1Handler: HTTP1Connection, ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let id: ConnectionID
    let pool: LiveConnectionPool
    var reader: HTTP1ExchangeReader
    private var context: ChannelHandlerContext?

    init(pool: LiveConnectionPool, id: ConnectionID) {
        self.pool = pool
        self.id = id
        reader = HTTP1ExchangeReader(at: pool.clock.now)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    var channel: (any Channel)? { context?.channel }

    func send(_ bytes: ByteBuffer) {
        context?.write(wrapOutboundOut(bytes), promise: nil)
    }

    func flush() {
        context?.flush()
    }

    func close() {
        context?.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { tlsHandshakeCompleted() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received(&bytes, at: pool.clock.now)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reader.failure == nil { reader.failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        self.context = nil
    }
}
