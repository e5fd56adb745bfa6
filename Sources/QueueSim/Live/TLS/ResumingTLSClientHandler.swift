import CNIOBoringSSL
import NIOCore
import NIOTLS
import QueueClientCore

/// An iOS visitor's TLS client on swift-nio-ssl's BoringSSL (`CNIOBoringSSL`), through memory
/// BIOs: the drop-in for `NIOSSLClientHandler` in front of `LiveTLSConnection` on an iOS
/// device's connections, because it can offer a session to resume (`NIOSSLHandler` exposes no
/// `SSL_SESSION`). A connection offers the device's last session for the endpoint and keeps
/// the new ones (`TLSSessionStore`), as iOS's session caches do. Android's connections stay on
/// `NIOSSLClientHandler`: a new `OkHttpClient` per attempt has nothing to resume.
///
/// It behaves as NIOSSL's handler does where the connection above reads it: the handshake
/// starts when the channel is active, `TLSUserEvent.handshakeCompleted` carries ALPN's
/// choice before any decrypted byte, writes wait for the handshake, each flushed write is
/// sealed on its own (one record for a request), and failures arrive as errors in the
/// classes `TLSErrorWording` reads (`TLSClientFailure`): a refused certificate, a failed
/// handshake (also a close during it), a close without `close_notify`.
final class ResumingTLSClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where a device's sessions are kept, and under which device and endpoint.
    struct Resumption {
        let store: TLSSessionStore
        let device: Int
        /// Which of the device's caches (`ConnectionDevice.sessionCache`).
        let cache: Int
        let endpoint: Int
    }

    private enum State {
        case idle
        case handshaking
        case active
        case closed
    }

    private var state = State.idle
    private let ssl: OpaquePointer
    /// The network's bytes in (ciphertext for BoringSSL) and BoringSSL's bytes out.
    private let networkIn: OpaquePointer
    private let networkOut: OpaquePointer
    private let resumption: Resumption?
    /// Told once, when the handshake completes, whether it resumed a session.
    private let completed: ((_ resumed: Bool) -> Void)?
    /// Writes handed over before the handshake completed, or since the last flush.
    private var pendingWrites: [(bytes: ByteBuffer, promise: EventLoopPromise<Void>?)] = []
    private var flushWanted = false
    /// The address the connection went to (`ResumingTLSClientContext`'s verification accepts a
    /// certificate naming it, as swift-nio-ssl does).
    private(set) var peerAddress: String?
    /// The verification error the certificate was refused with (`X509_V_ERR_*`), if it was.
    private var refusedCertificate: Int32?

    /// - Parameters:
    ///   - resumption: where the device's sessions are kept; nil: none offered or kept.
    ///   - completed: told whether the handshake resumed a session.
    init(
        context tls: ResumingTLSClientContext, resumption: Resumption?, completed: ((_ resumed: Bool) -> Void)? = nil
    ) throws {
        guard let ssl = SSL_new(tls.context) else { throw TLSClientFailure.handshakeFailed }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSClientFailure.handshakeFailed
        }
        // An empty memory BIO reads as "try again", not as the end of the stream.
        _ = BIO_set_mem_eof_return(networkIn, -1)
        _ = BIO_set_mem_eof_return(networkOut, -1)
        SSL_set_bio(ssl, networkIn, networkOut)
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        self.resumption = resumption
        self.completed = completed
        if let name = tls.serverName, SSL_set_tlsext_host_name(ssl, name) != 1 {
            throw TLSClientFailure.handshakeFailed
        }
        switch tls.checked {
        case .host(let name):
            guard SSL_set1_host(ssl, name) == 1 else { throw TLSClientFailure.handshakeFailed }
        case .address(let address):
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address) == 1 else {
                throw TLSClientFailure.handshakeFailed
            }
        case .chainOnly:
            break
        }
        if let resumption,
            let session = resumption.store.session(
                device: resumption.device, cache: resumption.cache, endpoint: resumption.endpoint)
        {
            SSL_set_session(ssl, session)
        }
        // Unretained: BoringSSL calls back (`offered`, `certificateRefused`) only from inside
        // this handler's calls. Index 0 is the app data slot (`SSL_set_app_data`, a macro).
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The handler `ssl` belongs to, in BoringSSL's callbacks.
    static func of(_ ssl: OpaquePointer) -> ResumingTLSClientHandler? {
        SSL_get_ex_data(ssl, 0).map { Unmanaged<ResumingTLSClientHandler>.fromOpaque($0).takeUnretainedValue() }
    }

    deinit {
        SSL_free(ssl)
    }

    /// A new session from the server: kept for the device (1 to BoringSSL) or declined.
    func offered(_ session: OpaquePointer) -> Bool {
        guard let resumption else { return false }
        resumption.store.keep(
            session, device: resumption.device, cache: resumption.cache, endpoint: resumption.endpoint)
        return true
    }

    // MARK: - Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    private func startHandshake(context: ChannelHandlerContext) {
        guard case .idle = state else { return }
        state = .handshaking
        peerAddress = context.channel.remoteAddress?.ipAddress
        handshakeStep(context: context)
    }

    private func handshakeStep(context: ChannelHandlerContext) {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            sendNetworkOut(context: context)
            handshakeCompleted(context: context)
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            sendNetworkOut(context: context)
        default:
            // The alert BoringSSL wrote, if any, goes out before the close.
            sendNetworkOut(context: context)
            fail(handshakeFailure(), context: context)
        }
    }

    /// Why the handshake failed, in the classes a phone tells apart: the certificate (its
    /// chain, or the name it carries) or anything else.
    ///
    /// Read from the refusal the verification callback told (`certificateRefused`), not from
    /// `SSL_get_verify_result`: BoringSSL answers that from the handshake's session, and before
    /// the server's hello there is none (`X509_V_ERR_INVALID_CALL`), which would word a refused
    /// ClientHello as a certificate failure.
    private func handshakeFailure() -> TLSClientFailure {
        ERR_clear_error()
        guard let refusedCertificate else { return .handshakeFailed }
        switch refusedCertificate {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .certificateNameMismatch
        default: return .certificateNotVerified
        }
    }

    /// The verification callback refused the server's certificate with `error`.
    func certificateRefused(_ error: Int32) {
        refusedCertificate = error
    }

    private func handshakeCompleted(context: ChannelHandlerContext) {
        state = .active
        completed?(SSL_session_reused(ssl) == 1)
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        let negotiated = selected.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: negotiated))
        guard case .active = state else { return }
        if flushWanted { sealPendingWrites(context: context) }
        // Records that came with the server's last handshake flight (a TLS 1.3 ticket, an
        // early answer).
        decode(context: context)
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard state == .handshaking || state == .active else { return }
        bytes.withUnsafeReadableBytes { raw in
            _ = BIO_write(networkIn, raw.baseAddress, Int32(raw.count))
        }
        switch state {
        case .handshaking: handshakeStep(context: context)
        case .active: decode(context: context)
        case .idle, .closed: break
        }
    }

    /// Decrypts what the network brought, fires it as one read, and answers a
    /// `close_notify` with its own before closing: a clean close.
    private func decode(context: ChannelHandlerContext) {
        // Plaintext is never longer than the records it came in.
        let capacity = max(BIO_ctrl_pending(networkIn), 1) + Int(SSL_pending(ssl))
        var plaintext = context.channel.allocator.buffer(capacity: capacity)
        var outcome: Int32 = SSL_ERROR_NONE
        while true {
            ERR_clear_error()
            var result: Int32 = 0
            plaintext.writeWithUnsafeMutableBytes(minimumWritableBytes: 1024) { raw in
                result = SSL_read(ssl, raw.baseAddress, Int32(clamping: raw.count))
                return max(Int(result), 0)
            }
            if result > 0 { continue }
            outcome = SSL_get_error(ssl, result)
            break
        }
        // A TLS 1.3 key update answered, or an alert.
        sendNetworkOut(context: context)
        if plaintext.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plaintext)) }
        guard case .active = state else { return }
        switch outcome {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return
        case SSL_ERROR_ZERO_RETURN:
            // The server's close_notify: answer it and close, cleanly.
            closeCleanly(context: context, promise: nil)
        default:
            ERR_clear_error()
            fail(.protocolError, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let before = state
        state = .closed
        switch before {
        case .handshaking:
            failPendingWrites(TLSClientFailure.handshakeFailed)
            context.fireErrorCaught(TLSClientFailure.handshakeFailed)
        case .active:
            // A ragged EOF: no close_notify came.
            failPendingWrites(TLSClientFailure.uncleanShutdown)
            context.fireErrorCaught(TLSClientFailure.uncleanShutdown)
        case .idle, .closed:
            failPendingWrites(ChannelError.ioOnClosedChannel)
        }
        context.fireChannelInactive()
    }

    // MARK: - Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard state != .closed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pendingWrites.append((unwrapOutboundIn(data), promise))
    }

    func flush(context: ChannelHandlerContext) {
        flushWanted = true
        guard case .active = state else { return }
        sealPendingWrites(context: context)
    }

    /// Seals each pending write in its own `SSL_write` (one record up to 16 KiB, so a
    /// request is one record) and sends the records in one network write.
    private func sealPendingWrites(context: ChannelHandlerContext) {
        flushWanted = false
        guard !pendingWrites.isEmpty else { return }
        let writes = pendingWrites
        pendingWrites.removeAll(keepingCapacity: true)
        var promises: [EventLoopPromise<Void>] = []
        for (bytes, promise) in writes {
            if let promise { promises.append(promise) }
            guard bytes.readableBytes > 0 else { continue }
            ERR_clear_error()
            let written = bytes.withUnsafeReadableBytes { raw in
                SSL_write(ssl, raw.baseAddress, Int32(clamping: raw.count))
            }
            guard written == bytes.readableBytes else {
                ERR_clear_error()
                for promise in promises { promise.fail(TLSClientFailure.protocolError) }
                fail(.protocolError, context: context)
                return
            }
        }
        sendNetworkOut(context: context, promises: promises)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all else {
            context.close(mode: mode, promise: promise)
            return
        }
        switch state {
        case .active: closeCleanly(context: context, promise: promise)
        case .idle, .handshaking, .closed:
            state = .closed
            failPendingWrites(ChannelError.ioOnClosedChannel)
            context.close(mode: mode, promise: promise)
        }
    }

    /// Sends `close_notify` and closes the connection without waiting for the server's (a
    /// phone's stack closes its socket after its own).
    private func closeCleanly(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        state = .closed
        failPendingWrites(ChannelError.ioOnClosedChannel)
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        sendNetworkOut(context: context)
        context.close(mode: .all, promise: promise)
    }

    // MARK: - Plumbing

    /// Writes and flushes what BoringSSL wrote for the network, completing `promises` with it.
    private func sendNetworkOut(context: ChannelHandlerContext, promises: [EventLoopPromise<Void>] = []) {
        let pending = BIO_ctrl_pending(networkOut)
        guard pending > 0 else {
            for promise in promises { promise.succeed() }
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: pending)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { raw in
            max(Int(BIO_read(networkOut, raw.baseAddress, Int32(clamping: pending))), 0)
        }
        let promise: EventLoopPromise<Void>?
        switch promises.count {
        case 0: promise = nil
        case 1: promise = promises[0]
        default:
            let all = context.eventLoop.makePromise(of: Void.self)
            for each in promises { all.futureResult.cascade(to: each) }
            promise = all
        }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
    }

    private func fail(_ failure: TLSClientFailure, context: ChannelHandlerContext) {
        guard state != .closed else { return }
        state = .closed
        failPendingWrites(failure)
        context.fireErrorCaught(failure)
        context.close(promise: nil)
    }

    private func failPendingWrites(_ error: any Error) {
        let writes = pendingWrites
        pendingWrites.removeAll()
        for (_, promise) in writes { promise?.fail(error) }
    }
}
