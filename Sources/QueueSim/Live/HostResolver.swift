import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks DNS (or a test's stand-in) for the addresses of a host a visitor met mid-run
/// (`MidRunHosts`). An answer is a future on the asking loop, which never blocks on it.
protocol HostNameResolver: Sendable {
    /// `host`'s addresses on `port`, or a failure naming why in words (the host did not
    /// resolve). It may never complete: `MidRunHosts` bounds the wait itself.
    func addresses(of host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<[SocketAddress]>
}

/// Why a host has no addresses, in words (`getaddrinfo`'s own, e.g. "Name or service not known").
struct HostResolutionError: Error, CustomStringConvertible {
    let description: String
}

/// The system's resolver, as a phone's apps use theirs: `getaddrinfo` (the hosts file, then
/// DNS) on NIO's shared thread pool, never on an event loop.
struct SystemHostResolver: HostNameResolver {
    func addresses(of host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<[SocketAddress]> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try Self.lookUp(host, port: port)
        }
    }

    /// Blocking: `getaddrinfo` for stream sockets, every address it gives, in its order.
    static func lookUp(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HostResolutionError(description: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            switch entry.ai_family {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    addresses.append(SocketAddress($0.pointee, host: host))
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    addresses.append(SocketAddress($0.pointee, host: host))
                }
            default:
                continue
            }
        }
        guard !addresses.isEmpty else { throw HostResolutionError(description: "no IPv4 or IPv6 address") }
        return addresses
    }
}
