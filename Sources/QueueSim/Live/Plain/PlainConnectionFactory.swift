#if os(Linux)
    import NIOCore

    /// Plain-HTTP connections on queuesim's own loop (`PlainHTTPConnection`): a socket each,
    /// watched by the `PlainEventLoop` it was made for, with no channel or pipeline. It carries
    /// no TLS, so `LiveTransport` only chooses it when every endpoint of the run is plain HTTP.
    final class PlainConnectionFactory: ConnectionFactory {
        private let loop: PlainEventLoop
        var eventLoop: any EventLoop { loop }

        init(loop: PlainEventLoop) {
            self.loop = loop
        }

        func carries(_ endpoint: LiveEndpoint) -> Bool { endpoint.tls == nil }

        func connect(
            _ request: ConnectionRequest, to endpoint: borrowing LiveEndpoint, for pool: LiveConnectionPool
        ) {
            PlainHTTPConnection(pool: pool, id: request.id, loop: loop)
                .connect(to: endpoint.address, from: request.source, timeout: request.timeout)
        }
    }
#endif
