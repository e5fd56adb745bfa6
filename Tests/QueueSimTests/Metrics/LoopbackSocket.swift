import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP connection to a loopback port, for tests that need what a real client
/// cannot send (garbage, half a request, nothing at all) and to see exactly when the server
/// closes. Every wait is bounded by `poll`.
final class LoopbackSocket {
    enum Failure: Error {
        case connect(Int32)
        case send(Int32)
    }

    /// What a read saw within its bound.
    enum Received: Equatable {
        case bytes([UInt8])
        /// The server closed the connection (EOF, or a reset).
        case closed
        /// Nothing arrived in time; the connection is still open.
        case silent
    }

    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw Failure.connect(error)
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failure.send(errno) }
    }

    /// The next bytes within `limit`, or that the server closed, or silence.
    func receive(within limit: Duration) -> Received {
        var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // A negative timeout would make poll wait for ever.
        let milliseconds = Int32(
            max(0, limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000))
        guard poll(&watch, 1, milliseconds) > 0 else { return .silent }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? .bytes(Array(buffer[..<count])) : .closed
    }

    /// Everything until the server closes, if it does within `limit`; nil if it does not.
    func readUntilClosed(within limit: Duration) -> [UInt8]? {
        let deadline = ContinuousClock.now + limit
        var all: [UInt8] = []
        while ContinuousClock.now < deadline {
            switch receive(within: deadline - ContinuousClock.now) {
            case .bytes(let bytes): all += bytes
            case .closed: return all
            case .silent: return nil
            }
        }
        return nil
    }
}
