import NIOCore
import NIOHPACK
import NIOHTTP2

/// An h2 client connection's frames, both ways, between NIOSSL and `H2Session`: what
/// `NIOHTTP2Handler` did for the session, without its per-stream state machines (a visitor's
/// requests are sequential: one stream at a time). It writes the client preface, the stack's
/// SETTINGS and first connection WINDOW_UPDATE; acknowledges and applies the server's SETTINGS
/// (MAX_FRAME_SIZE and INITIAL_WINDOW_SIZE for what it sends, HEADER_TABLE_SIZE for the HPACK
/// encoder); answers PINGs; tops the connection's and the stream's receive windows up as DATA
/// is consumed; reassembles HEADERS + CONTINUATION, strips padding; splits what it sends to
/// the server's frame size and send windows; ignores PRIORITY and unknown frame types; and
/// answers a broken frame with GOAWAY and a `H2ConnectionError`.
///
/// Not a channel handler: the session feeds it the decrypted bytes (`receive`), pulls the
/// frames it acts on (`nextFrame`: HEADERS, DATA, RST_STREAM, GOAWAY) and writes what it
/// gathered (`takeOutbound`) at a flush, one buffer per flush, so a request is one TLS record.
struct H2FrameCodec {
    /// The stack's windows, which `WINDOW_UPDATE`s top up to once less than half is left
    /// (OkHttp's `Http2Stream.receiveData`, Chromium's `SpdySession`).
    let connectionWindowTarget: Int
    let streamWindowTarget: Int
    /// The largest frame the server may send (our SETTINGS_MAX_FRAME_SIZE).
    let maxInboundFrame: Int
    /// We sent ENABLE_PUSH 0: a PUSH_PROMISE breaks the connection's rules.
    let pushDisabled: Bool

    var encoder: HPACKEncoder
    var decoder: HPACKDecoder
    /// Bytes received and not yet framed: the decrypted buffer itself when a read ends on a
    /// frame boundary (no copy), the rest of a split frame otherwise.
    var inbound: ByteBuffer
    /// What to write at the next flush.
    var outbound: ByteBuffer
    /// Whether `outbound` was handed to the channel: cleared before the next write, so its
    /// memory is used again once NIOSSL has let it go.
    var handedOn = false

    var connectionReceiveWindow: Int
    /// The stream in flight and what is left of its receive window.
    var stream: (id: Int32, window: Int)?
    /// A header block whose END_HEADERS has not come: its stream, its fragments, whether it
    /// ends the stream, and the promised stream of a PUSH_PROMISE.
    var headerBlock: (stream: Int32, fragments: ByteBuffer, endStream: Bool, promised: Int32?)?

    /// The server's SETTINGS as they apply to what we send.
    var maxOutboundFrame = 16_384
    var peerInitialWindow = 65_535
    var connectionSendWindow = 65_535
    /// The stream in flight's send window and the body bytes it has not let out yet.
    var streamSendWindow = 65_535
    var pendingBody: (stream: Int32, bytes: ByteBuffer)?

    init(stack: H2Stack, allocator: ByteBufferAllocator) {
        let settings = stack.initialSettings
        func setting(_ parameter: HTTP2SettingsParameter) -> Int? {
            settings.first { $0.parameter == parameter }?.value
        }
        connectionWindowTarget = stack.connectionWindow
        streamWindowTarget = stack.streamWindow
        maxInboundFrame = setting(.maxFrameSize) ?? 16_384
        pushDisabled = setting(.enablePush) == 0
        encoder = HPACKEncoder(allocator: allocator)
        decoder = HPACKDecoder(
            allocator: allocator, maxDynamicTableSize: setting(.headerTableSize) ?? HPACKDecoder.maxDynamicTableSize,
            maxHeaderListSize: setting(.maxHeaderListSize) ?? HPACKDecoder.defaultMaxHeaderListSize)
        connectionReceiveWindow = 65_535
        inbound = allocator.buffer(capacity: 0)
        outbound = allocator.buffer(capacity: 1024)
        outbound.writeStaticString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        writeFrameHeader(length: settings.count * 6, type: .settings, flags: 0, stream: 0)
        for item in settings {
            outbound.writeInteger(Self.identifier(of: item.parameter))
            outbound.writeInteger(UInt32(truncatingIfNeeded: item.value))
        }
        writeWindowUpdate(stream: 0, increment: stack.connectionWindowIncrement)
        connectionReceiveWindow += stack.connectionWindowIncrement
    }

    /// A setting's identifier (NIOHTTP2 keeps it internal): the parameters the stacks send are
    /// all below 16.
    static func identifier(of parameter: HTTP2SettingsParameter) -> UInt16 {
        (1..<16).first { HTTP2SettingsParameter(extensionSetting: $0) == parameter }.map { UInt16($0) } ?? 0
    }

    /// Frame types by their number (RFC 9113 §6).
    enum FrameType: UInt8 {
        case data = 0
        case headers, priority, rstStream, settings, pushPromise, ping, goAway, windowUpdate, continuation
    }

    enum Flag {
        static let endStream: UInt8 = 0x1
        static let ack: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
        static let padded: UInt8 = 0x8
        static let priority: UInt8 = 0x20
    }

    // MARK: - Inbound

    /// Bytes NIOSSL decrypted, to be framed by `nextFrame`.
    mutating func receive(_ bytes: ByteBuffer) {
        if inbound.readableBytes == 0 {
            inbound = bytes
        } else {
            var bytes = bytes
            inbound.writeBuffer(&bytes)
        }
    }

    /// The next frame the session acts on, nil once the bytes received end mid-frame. The
    /// frames the codec answers itself (SETTINGS, PING, WINDOW_UPDATE, PRIORITY, unknown
    /// types) are consumed on the way. Throws after writing GOAWAY when a frame breaks h2's
    /// rules: the connection must close.
    mutating func nextFrame() throws(H2ConnectionError) -> HTTP2Frame? {
        while let (type, flags, streamID, payload) = try readFrame() {
            if let frame = try handle(type: type, flags: flags, stream: streamID, payload: payload) {
                return frame
            }
        }
        return nil
    }

    /// One whole frame's header fields and payload (a slice of the received bytes), if in.
    private mutating func readFrame() throws(H2ConnectionError) -> (UInt8, UInt8, Int32, ByteBuffer)? {
        guard inbound.readableBytes >= 9,
            let head = inbound.getInteger(at: inbound.readerIndex, as: UInt32.self),
            let type = inbound.getInteger(at: inbound.readerIndex + 3, as: UInt8.self),
            let flags = inbound.getInteger(at: inbound.readerIndex + 4, as: UInt8.self),
            let rawStream = inbound.getInteger(at: inbound.readerIndex + 5, as: UInt32.self)
        else { return nil }
        let length = Int(head >> 8)
        if length > maxInboundFrame {
            throw fail(.frameSizeError, "a frame of \(length) bytes, over SETTINGS_MAX_FRAME_SIZE \(maxInboundFrame)")
        }
        guard inbound.readableBytes >= 9 + length else { return nil }
        inbound.moveReaderIndex(forwardBy: 9)
        // A slice: the decrypted bytes are not copied. `receive` replaces the buffer once read.
        let payload = inbound.readSlice(length: length)!
        return (type, flags, Int32(bitPattern: rawStream & 0x7FFF_FFFF), payload)
    }

    private mutating func handle(
        type rawType: UInt8, flags: UInt8, stream: Int32, payload: ByteBuffer
    ) throws(H2ConnectionError) -> HTTP2Frame? {
        let type = FrameType(rawValue: rawType)
        if let block = headerBlock, type != .continuation || stream != block.stream {
            throw fail(.protocolError, "a frame other than CONTINUATION inside a header block")
        }
        switch type {
        case .data: return try readData(flags: flags, stream: stream, payload: payload)
        case .headers, .pushPromise, .continuation:
            return try readHeaderBlock(type!, flags: flags, stream: stream, payload: payload)
        case .rstStream:
            guard stream != 0 else { throw fail(.protocolError, "RST_STREAM on stream 0") }
            guard payload.readableBytes == 4 else { throw fail(.frameSizeError, "RST_STREAM not of 4 bytes") }
            let code = payload.getInteger(at: payload.readerIndex, as: UInt32.self)!
            if stream == pendingBody?.stream { pendingBody = nil }
            if stream == self.stream?.id { self.stream = nil }
            return HTTP2Frame(
                streamID: HTTP2StreamID(stream), payload: .rstStream(HTTP2ErrorCode(networkCode: Int(code))))
        case .settings:
            try readSettings(flags: flags, stream: stream, payload: payload)
        case .ping:
            guard stream == 0 else { throw fail(.protocolError, "PING on a stream") }
            guard payload.readableBytes == 8 else { throw fail(.frameSizeError, "PING not of 8 bytes") }
            if flags & Flag.ack == 0 {
                prepareOutbound()
                writeFrameHeader(length: 8, type: .ping, flags: Flag.ack, stream: 0)
                outbound.writeImmutableBuffer(payload)
            }
        case .goAway:
            guard stream == 0 else { throw fail(.protocolError, "GOAWAY on a stream") }
            var payload = payload
            guard let last = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self)
            else { throw fail(.frameSizeError, "GOAWAY shorter than 8 bytes") }
            return HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(
                    lastStreamID: HTTP2StreamID(Int32(bitPattern: last & 0x7FFF_FFFF)),
                    errorCode: HTTP2ErrorCode(networkCode: Int(code)), opaqueData: payload))
        case .windowUpdate:
            try readWindowUpdate(stream: stream, payload: payload)
        case .priority, nil:
            // PRIORITY is advice a client may ignore; unknown types must be (RFC 9113 §5.5).
            break
        }
        return nil
    }

    /// A DATA frame's payload without its padding, its length counted against both receive
    /// windows (padding included, RFC 9113 §6.9.1) and the windows topped up once below half.
    private mutating func readData(
        flags: UInt8, stream: Int32, payload: ByteBuffer
    ) throws(H2ConnectionError) -> HTTP2Frame? {
        guard stream != 0 else { throw fail(.protocolError, "DATA on stream 0") }
        let length = payload.readableBytes
        connectionReceiveWindow -= length
        if connectionReceiveWindow < 0 { throw fail(.flowControlError, "DATA beyond the connection's window") }
        let data = try unpadded(payload, flags: flags)
        if connectionReceiveWindow < connectionWindowTarget / 2 {
            prepareOutbound()
            writeWindowUpdate(stream: 0, increment: connectionWindowTarget - connectionReceiveWindow)
            connectionReceiveWindow = connectionWindowTarget
        }
        guard var current = self.stream, current.id == stream else { return nil }
        current.window -= length
        if current.window < 0 { throw fail(.flowControlError, "DATA beyond the stream's window") }
        let endStream = flags & Flag.endStream != 0
        if !endStream, current.window < streamWindowTarget / 2 {
            prepareOutbound()
            writeWindowUpdate(stream: stream, increment: streamWindowTarget - current.window)
            current.window = streamWindowTarget
        }
        self.stream = endStream ? nil : current
        return HTTP2Frame(
            streamID: HTTP2StreamID(stream), payload: .data(.init(data: .byteBuffer(data), endStream: endStream)))
    }

    /// `payload` without the pad length byte and the padding, when `PADDED` is set.
    private mutating func unpadded(_ payload: ByteBuffer, flags: UInt8) throws(H2ConnectionError) -> ByteBuffer {
        guard flags & Flag.padded != 0 else { return payload }
        var payload = payload
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw fail(.protocolError, "padding longer than its frame")
        }
        return payload.readSlice(length: payload.readableBytes - Int(padding))!
    }

    /// HEADERS, PUSH_PROMISE and their CONTINUATIONs: the block decoded once END_HEADERS came.
    private mutating func readHeaderBlock(
        _ type: FrameType, flags: UInt8, stream: Int32, payload: ByteBuffer
    ) throws(H2ConnectionError) -> HTTP2Frame? {
        guard stream != 0 else { throw fail(.protocolError, "a header block on stream 0") }
        var fragment = payload
        switch type {
        case .continuation:
            guard var block = headerBlock else { throw fail(.protocolError, "CONTINUATION outside a header block") }
            if block.fragments.readableBytes + fragment.readableBytes > decoder.maxHeaderListSize {
                throw fail(.protocolError, "a header block over the header list size")
            }
            headerBlock = nil
            block.fragments.writeBuffer(&fragment)
            headerBlock = block
        case .pushPromise:
            if pushDisabled { throw fail(.protocolError, "PUSH_PROMISE after SETTINGS_ENABLE_PUSH 0") }
            fragment = try unpadded(fragment, flags: flags)
            guard let promised = fragment.readInteger(as: UInt32.self) else {
                throw fail(.frameSizeError, "PUSH_PROMISE shorter than its promised stream")
            }
            headerBlock = (stream, fragment, false, Int32(bitPattern: promised & 0x7FFF_FFFF))
        default:
            fragment = try unpadded(fragment, flags: flags)
            if flags & Flag.priority != 0 {
                guard fragment.readableBytes >= 5 else {
                    throw fail(.frameSizeError, "HEADERS shorter than its priority")
                }
                fragment.moveReaderIndex(forwardBy: 5)
            }
            headerBlock = (stream, fragment, flags & Flag.endStream != 0, nil)
        }
        guard flags & Flag.endHeaders != 0, var block = headerBlock.take() else { return nil }
        let headers: HPACKHeaders
        do {
            headers = try decoder.decodeHeaders(from: &block.fragments)
        } catch {
            throw fail(.compressionError, "a header block HPACK cannot decode (\(error))")
        }
        if let promised = block.promised {
            // A push the stack did not ask for (OkHttp's PushObserver.CANCEL): cancelled.
            prepareOutbound()
            writeFrameHeader(length: 4, type: .rstStream, flags: 0, stream: promised)
            outbound.writeInteger(UInt32(HTTP2ErrorCode.cancel.networkCode))
            return nil
        }
        if block.endStream, stream == self.stream?.id { self.stream = nil }
        return HTTP2Frame(
            streamID: HTTP2StreamID(stream), payload: .headers(.init(headers: headers, endStream: block.endStream)))
    }

    /// The server's SETTINGS, applied and acknowledged.
    private mutating func readSettings(flags: UInt8, stream: Int32, payload: ByteBuffer) throws(H2ConnectionError) {
        guard stream == 0 else { throw fail(.protocolError, "SETTINGS on a stream") }
        if flags & Flag.ack != 0 {
            guard payload.readableBytes == 0 else { throw fail(.frameSizeError, "a SETTINGS ACK with a payload") }
            return
        }
        guard payload.readableBytes % 6 == 0 else { throw fail(.frameSizeError, "SETTINGS not of 6-byte entries") }
        var payload = payload
        while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            try apply(setting: identifier, value: Int(value))
        }
        prepareOutbound()
        writeFrameHeader(length: 0, type: .settings, flags: Flag.ack, stream: 0)
        sendPendingBody()
    }

    private mutating func apply(setting identifier: UInt16, value: Int) throws(H2ConnectionError) {
        switch identifier {
        case 1:
            // The encoder may use up to what the server allows; it keeps HPACK's default.
            try? encoder.setDynamicTableSize(min(value, HPACKEncoder.defaultDynamicTableSize))
        case 2:
            if value > 1 { throw fail(.protocolError, "SETTINGS_ENABLE_PUSH \(value)") }
        case 4:
            if value > Int(Int32.max) { throw fail(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(value)") }
            streamSendWindow += value - peerInitialWindow
            peerInitialWindow = value
        case 5:
            if value < 16_384 || value > 16_777_215 { throw fail(.protocolError, "SETTINGS_MAX_FRAME_SIZE \(value)") }
            maxOutboundFrame = value
        default:
            break
        }
    }

    private mutating func readWindowUpdate(stream: Int32, payload: ByteBuffer) throws(H2ConnectionError) {
        guard payload.readableBytes == 4 else { throw fail(.frameSizeError, "WINDOW_UPDATE not of 4 bytes") }
        let increment = Int(payload.getInteger(at: payload.readerIndex, as: UInt32.self)! & 0x7FFF_FFFF)
        if stream == 0 {
            guard increment > 0 else { throw fail(.protocolError, "a connection WINDOW_UPDATE of 0") }
            connectionSendWindow += increment
            if connectionSendWindow > Int(Int32.max) {
                throw fail(.flowControlError, "the connection window overflowed")
            }
        } else if stream == pendingBody?.stream || stream == self.stream?.id {
            streamSendWindow += increment
        }
        sendPendingBody()
    }

    /// Writes GOAWAY with `code` and returns the error the session closes the connection with.
    mutating func fail(_ code: HTTP2ErrorCode, _ reason: String) -> H2ConnectionError {
        prepareOutbound()
        writeFrameHeader(length: 8, type: .goAway, flags: 0, stream: 0)
        outbound.writeInteger(UInt32(0))
        outbound.writeInteger(UInt32(code.networkCode))
        return H2ConnectionError(code: code, reason: reason)
    }
}

/// A frame that breaks h2's rules: the codec has written GOAWAY `code`; the connection closes.
struct H2ConnectionError: Error, CustomStringConvertible {
    let code: HTTP2ErrorCode
    let reason: String
    var description: String { "\(reason) (\(Self.name(of: code)))" }

    /// The code's name in RFC 9113 §7.
    static func name(of code: HTTP2ErrorCode) -> String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
            "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return names.indices.contains(code.networkCode) ? names[code.networkCode] : "error \(code.networkCode)"
    }
}
