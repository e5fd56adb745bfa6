#if os(Linux)
    import CEpoll
    import Glibc
    import NIOCore
    import QueueClientCore

    /// An HTTP/1.1 connection on a non-blocking socket of its own, watched by a `PlainEventLoop`:
    /// plain HTTP without a channel. One `epoll_ctl` per connection (registered for both
    /// directions, edge-triggered, when the connect starts), a write per request, a read per
    /// answer. Its errors are SwiftNIO's types (`IOError`, `ChannelError`), so they read the same
    /// in `visitors.csv` whichever transport ran.
    final class PlainHTTPConnection: HTTP1Connection, PlainSocketWatcher {
        let id: ConnectionID
        let pool: LiveConnectionPool
        var reader: HTTP1ExchangeReader
        private let loop: PlainEventLoop
        private var fd: Int32 = -1
        private var state = State.connecting
        /// Request bytes handed over and not all sent yet.
        private var unsent: ByteBuffer?
        /// `flush` came while `unsent` waits for the socket to take more.
        private var waitingToSend = false
        private var connectTimer: Scheduled<Void>?

        private enum State { case connecting, open, closed }

        init(pool: LiveConnectionPool, id: ConnectionID, loop: PlainEventLoop) {
            self.loop = loop
            self.pool = pool
            self.id = id
            reader = HTTP1ExchangeReader(at: pool.clock.now)
        }

        /// Starts connecting to `address` (from `source`, when given); the pool hears
        /// `connectionEstablished` or `connectFailed`, never from inside this call.
        func connect(to address: SocketAddress, from source: SocketAddress?, timeout: TimeAmount) {
            let family = address.protocol == .inet6 ? AF_INET6 : AF_INET
            fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return failLater(IOError(errnoCode: errno, reason: "socket")) }
            // A request leaves in one write, as a phone's does (SwiftNIO's default too).
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if let source, Self.withSockAddr(source, { bind(fd, $0, $1) }) != 0 {
                return failLater(IOError(errnoCode: errno, reason: "bind"))
            }
            let result = Self.withSockAddr(address) { Glibc.connect(fd, $0, $1) }
            if result != 0 && errno != EINPROGRESS {
                return failLater(IOError(errnoCode: errno, reason: "connect"))
            }
            let events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue
            guard loop.watch(fd, events: events, by: self) else {
                return failLater(IOError(errnoCode: errno, reason: "epoll_ctl"))
            }
            connectTimer = loop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: timeout) { [self] in
                guard state == .connecting else { return }
                closeSocket()
                pool.connectFailed(id, error: ChannelError.connectTimeout(timeout))
            }
        }

        // MARK: - The transport's part

        func send(_ bytes: ByteBuffer) {
            unsent = bytes
        }

        func flush() {
            guard state == .open, unsent != nil else { return }
            sendUnsent()
        }

        func close() {
            guard state == .open else { return }
            closeSocket()
            ended()
        }

        // MARK: - Socket events

        func socketReady(_ events: UInt32) {
            if state == .connecting {
                guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
                connectTimer?.cancel()
                connectTimer = nil
                guard code == 0 else {
                    closeSocket()
                    return pool.connectFailed(id, error: IOError(errnoCode: code, reason: "connect"))
                }
                state = .open
                pool.connectionEstablished(id, connection: self)
            }
            if events & EPOLLOUT.rawValue != 0, waitingToSend, state == .open { sendUnsent() }
            if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                state == .open
            {
                readAvailable(peerClosed: events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
            }
        }

        /// The loop is shutting down: a connect in progress fails, an open connection ends with
        /// the loop's error as its failure, so the pool and the visitor hear why, as they would
        /// from a SwiftNIO channel closed by its loop's shutdown.
        func loopShutDown() {
            switch state {
            case .connecting:
                closeSocket()
                pool.connectFailed(id, error: EventLoopError.shutdown)
            case .open:
                reader.failure = reader.failure ?? EventLoopError.shutdown
                close()
            case .closed:
                break
            }
        }

        /// Reads until the socket has nothing more now (a read that does not fill the buffer took
        /// all there was: edge-triggered, new bytes raise a new event) or the connection ends.
        private func readAvailable(peerClosed: Bool) {
            while state == .open {
                let (count, code) = loop.withReceiveBuffer { buffer -> (Int, Int32) in
                    var code: Int32 = 0
                    let count = buffer.writeWithUnsafeMutableBytes(
                        minimumWritableBytes: PlainEventLoop.receiveBufferSize
                    ) {
                        let count = read(fd, $0.baseAddress, $0.count)
                        if count < 0 { code = errno }
                        return max(0, count)
                    }
                    if count > 0 { received(&buffer, at: pool.clock.now) }
                    return (count, code)
                }
                if count > 0 {
                    if count < PlainEventLoop.receiveBufferSize && !peerClosed { return }
                    continue
                }
                if code == EAGAIN || code == EINTR { return }
                // 0: the server closed; or the read failed.
                if code != 0 { reader.failure = reader.failure ?? IOError(errnoCode: code, reason: "read") }
                return close()
            }
        }

        private func sendUnsent() {
            guard var bytes = unsent.take() else { return }
            waitingToSend = false
            while bytes.readableBytes > 0 {
                let written = bytes.withUnsafeReadableBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written > 0 {
                    bytes.moveReaderIndex(forwardBy: written)
                    continue
                }
                if written < 0 && errno == EINTR { continue }
                if written < 0 && errno == EAGAIN {
                    // The next writable edge sends the rest.
                    unsent = bytes
                    waitingToSend = true
                    return
                }
                reader.failure = reader.failure ?? IOError(errnoCode: written < 0 ? errno : EPIPE, reason: "write")
                return close()
            }
        }

        private func closeSocket() {
            state = .closed
            connectTimer?.cancel()
            connectTimer = nil
            unsent = nil
            guard fd >= 0 else { return }
            loop.unwatch(fd)
            Glibc.close(fd)
            fd = -1
        }

        /// A connect that failed before it started is reported on the next turn of the loop.
        private func failLater(_ error: IOError) {
            closeSocket()
            loop.assumeIsolatedUnsafeUnchecked().execute { [self] in pool.connectFailed(id, error: error) }
        }

        private static func withSockAddr<R>(
            _ address: SocketAddress, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
        ) -> R {
            switch address {
            case .v4(let v4):
                var raw = v4.address
                return withUnsafePointer(to: &raw) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            case .v6(let v6):
                var raw = v6.address
                return withUnsafePointer(to: &raw) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            case .unixDomainSocket:
                preconditionFailure("endpoints are IP addresses")
            }
        }
    }
#endif
