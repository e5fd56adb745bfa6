import NIOCore

/// Gathers an h2 connection's writes between flushes into one buffer, so each flush is one
/// TLS record rather than one per piece: NIOHTTP2 writes a HEADERS frame, a DATA frame's
/// 9-byte header and its payload as three buffers, and NIOSSL seals every buffer it is given
/// as a record of its own (three AES-GCM seals and record headers per request where HTTP/1.1
/// and h2load have one). Sits between NIOSSL's handler and NIOHTTP2's. A write that carries a
/// promise, or is not a byte buffer, goes through as it is, after what was gathered before it.
/// What it gathered leaves only with a flush that passes it: the connection flushes from the
/// session's end of the pipeline (`H2Session.flush`), never from its own place before it.
final class H2WriteCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What was written since the last flush.
    private var gathered: ByteBuffer?
    /// `gathered` was handed on: cleared before the next write, by when NIOSSL has sealed it
    /// and let it go (during the flush), so its memory is used again rather than copied.
    private var handedOn = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard promise == nil, case .byteBuffer(let bytes) = unwrapOutboundIn(data) else {
            writeGathered(context: context)
            context.write(data, promise: promise)
            return
        }
        if gathered == nil { gathered = context.channel.allocator.buffer(capacity: 1024) }
        if handedOn {
            gathered!.clear()
            handedOn = false
        }
        gathered!.writeImmutableBuffer(bytes)
    }

    func flush(context: ChannelHandlerContext) {
        writeGathered(context: context)
        context.flush()
    }

    private func writeGathered(context: ChannelHandlerContext) {
        guard !handedOn, let buffer = gathered, buffer.readableBytes > 0 else { return }
        context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
        handedOn = true
    }
}
