import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A capturing TLS proxy on loopback (issue 55's first "Done when"): `H2StandInServer`
/// terminates TLS (ALPN `h2, http/1.1`) and records every request as the client framed it —
/// its protocol, its HEADERS block's pseudo-header order and field names — and each request is
/// forwarded over plain HTTP/1.1 to a room on 127.0.0.1 (`queuesim serve`), whose answer is
/// relayed. What a TLS-terminating proxy (mitmproxy, Charles) in front of the room shows.
///
/// Usage:
/// ```swift
/// let proxy = try await CapturingTLSProxy.start(forwardingTo: roomPort, certificatePath: …, keyPath: …)
/// defer { Task { await proxy.shutdown() } }
/// // run visitors against https://127.0.0.1:\(proxy.port), then read proxy.requests
/// ```
///
/// The forward is a blocking HTTP/1.1 exchange on the stand-in's event loop (one connection per
/// request, `Connection: close`, 10 s bounds on connect, send and receive): enough for a test's
/// few dozen visitors, and the room runs in another process, so nothing waits on itself.
package enum CapturingTLSProxy {
    /// Starts the proxy on 127.0.0.1 (a free port) in front of the plain-HTTP room on `roomPort`.
    package static func start(forwardingTo roomPort: Int, certificatePath: String, keyPath: String) async throws
        -> H2StandInServer
    {
        var options = H2StandInServer.Options()
        options.certificatePath = certificatePath
        options.keyPath = keyPath
        options.respond = { request in forward(request, toPort: roomPort) }
        return try await H2StandInServer.start(options)
    }

    /// Fields that belong to one connection (RFC 9110 §7.6.1, RFC 9113 §8.2.2): not forwarded,
    /// not relayed; `host` is the request's `:authority`, `content-length` is recounted.
    static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "host",
        "content-length",
    ]

    /// The room's answer to `request`, or a 502 saying why there is none.
    static func forward(_ request: H2StandInRequest, toPort port: Int) -> H2StandInResponse {
        let authority =
            request.pseudoHeaders[":authority"]
            ?? request.headers.first { $0.name.lowercased() == "host" }?.value ?? "127.0.0.1"
        var head = "\(request.method ?? "GET") \(request.path ?? "/") HTTP/1.1\r\nhost: \(authority)\r\n"
        for field in request.headers where !connectionFields.contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "content-length: \(request.body.count)\r\nconnection: close\r\n\r\n"
        do {
            let answer = try BlockingHTTPExchange.exchange(Array(head.utf8) + request.body, port: port)
            return try parse(answer)
        } catch {
            return H2StandInResponse(status: 502, body: Array("proxy: \(error)".utf8))
        }
    }

    struct Unparsable: Error, CustomStringConvertible {
        var description: String
    }

    /// An HTTP/1.1 answer read to its end: status, fields (lowercase, without the connection's
    /// own), body (by `content-length`, chunked, or to the close).
    static func parse(_ bytes: [UInt8]) throws -> H2StandInResponse {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw Unparsable(description: "no end of head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else {
            throw Unparsable(description: "status line `\(lines[0])`")
        }
        var fields: [H2StandInRequest.Field] = []
        var chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "transfer-encoding", value.lowercased().contains("chunked") { chunked = true }
            if !connectionFields.contains(name) { fields.append(.init(name: name, value: value)) }
        }
        var body = Array(bytes[(end + separator.count)...])
        if chunked { body = try dechunk(body) }
        return H2StandInResponse(status: status, headers: fields, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\r")) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Unparsable(description: "chunk size `\(sizeText)`")
            }
            let start = lineEnd + 2
            guard size > 0 else { return body }
            guard start + size <= bytes.count else { throw Unparsable(description: "a chunk cut short") }
            body += bytes[start..<(start + size)]
            index = start + size + 2
            guard index < bytes.count else { break }
        }
        return body
    }
}

/// One HTTP/1.1 exchange on a blocking loopback socket: connect to 127.0.0.1:`port`, send
/// every byte, read until the server closes. Each step is bounded (10 s), and so is the
/// answer's size (16 MiB).
enum BlockingHTTPExchange {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func exchange(_ request: [UInt8], port: Int) throws -> [UInt8] {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var bound = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while answer.count < 16 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { throw Failure(description: "recv: errno \(errno)") }
            if count == 0 { break }
            answer += buffer[..<count]
        }
        return answer
    }
}
