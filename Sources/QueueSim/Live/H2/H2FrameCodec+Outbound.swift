import NIOCore
import NIOHPACK
import NIOHTTP2

/// What the codec writes: a request's frames, window updates and replies, gathered into one
/// buffer per flush.
extension H2FrameCodec {
    /// Opens stream `stream` with `headers` (HEADERS, then CONTINUATIONs beyond the server's
    /// frame size) and sends `body`, if any, as DATA as far as the send windows allow; the
    /// rest leaves as the server's WINDOW_UPDATEs come.
    mutating func sendRequest(stream: Int32, headers: HPACKHeaders, body: [UInt8]?) {
        prepareOutbound()
        self.stream = (stream, streamWindowTarget)
        streamSendWindow = peerInitialWindow
        pendingBody = nil
        let endStream = body == nil
        // The block is encoded after a HEADERS frame header, written once its length is known.
        let headerAt = outbound.writerIndex
        outbound.moveWriterIndex(forwardBy: 9)
        try! encoder.encode(headers: headers, to: &outbound)  // Only throws while encoding incrementally.
        let blockLength = outbound.writerIndex - headerAt - 9
        if blockLength <= maxOutboundFrame {
            let flags = Flag.endHeaders | (endStream ? Flag.endStream : 0)
            setFrameHeader(at: headerAt, length: blockLength, type: .headers, flags: flags, stream: stream)
        } else {
            var block = outbound.getSlice(at: headerAt + 9, length: blockLength)!
            outbound.moveWriterIndex(to: headerAt)
            var type = FrameType.headers
            var flags = endStream ? Flag.endStream : 0
            while block.readableBytes > 0 {
                var piece = block.readSlice(length: min(maxOutboundFrame, block.readableBytes))!
                let last = block.readableBytes == 0
                writeFrameHeader(
                    length: piece.readableBytes, type: type, flags: flags | (last ? Flag.endHeaders : 0), stream: stream
                )
                outbound.writeBuffer(&piece)
                (type, flags) = (.continuation, 0)
            }
        }
        guard let body else { return }
        if body.count <= min(maxOutboundFrame, connectionSendWindow, streamSendWindow) {
            // The common case, a small POST body: written in place.
            writeFrameHeader(length: body.count, type: .data, flags: Flag.endStream, stream: stream)
            outbound.writeBytes(body)
            connectionSendWindow -= body.count
            streamSendWindow -= body.count
            return
        }
        pendingBody = (stream, ByteBuffer(bytes: body))
        sendPendingBody()
    }

    /// As much of the pending body as both send windows and the frame size let out.
    mutating func sendPendingBody() {
        guard var (stream, body) = pendingBody else { return }
        prepareOutbound()
        while true {
            let size = min(body.readableBytes, maxOutboundFrame, connectionSendWindow, streamSendWindow)
            // An empty body's single DATA frame ends the stream even with no window left.
            guard size > 0 || body.readableBytes == 0 else { break }
            var piece = body.readSlice(length: size)!
            let last = body.readableBytes == 0
            writeFrameHeader(length: size, type: .data, flags: last ? Flag.endStream : 0, stream: stream)
            outbound.writeBuffer(&piece)
            connectionSendWindow -= size
            streamSendWindow -= size
            if last {
                pendingBody = nil
                return
            }
        }
        pendingBody = (stream, body)
    }

    /// What was written since the last flush, if anything: the caller hands it to the channel.
    mutating func takeOutbound() -> ByteBuffer? {
        guard !handedOn, outbound.readableBytes > 0 else { return nil }
        handedOn = true
        return outbound
    }

    /// Before a write: once the last buffer was handed on (and NIOSSL, which seals it during
    /// the flush, has let it go), its memory is written again rather than copied.
    mutating func prepareOutbound() {
        guard handedOn else { return }
        outbound.clear()
        handedOn = false
    }

    mutating func writeWindowUpdate(stream: Int32, increment: Int) {
        writeFrameHeader(length: 4, type: .windowUpdate, flags: 0, stream: stream)
        outbound.writeInteger(UInt32(increment))
    }

    mutating func writeFrameHeader(length: Int, type: FrameType, flags: UInt8, stream: Int32) {
        outbound.writeInteger(UInt32(length) << 8 | UInt32(type.rawValue))
        outbound.writeInteger(flags)
        outbound.writeInteger(UInt32(stream))
    }

    private mutating func setFrameHeader(at index: Int, length: Int, type: FrameType, flags: UInt8, stream: Int32) {
        outbound.setInteger(UInt32(length) << 8 | UInt32(type.rawValue), at: index)
        outbound.setInteger(flags, at: index + 4)
        outbound.setInteger(UInt32(stream), at: index + 5)
    }
}
