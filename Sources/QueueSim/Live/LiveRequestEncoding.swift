import HTTPTypes
import NIOCore
import QueueClientCore

/// A request as HTTP/1.1 bytes.
enum LiveRequestEncoding {
    /// `Host` is the request's own authority (the waiting-room host, even when the connection
    /// goes elsewhere: `target.endpoint`'s connect-to).
    static func encode(
        _ request: OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        let head = request.head
        var size = 64 + (head.path?.utf8.count ?? 1) + (head.authority ?? defaultAuthority).utf8.count
        for field in head.headerFields { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        var buffer = allocator.buffer(capacity: size + (request.body?.count ?? 0))
        writeHead(head, defaultAuthority: defaultAuthority, into: &buffer)
        writeFraming(body: request.body, into: &buffer)
        return buffer
    }

    /// The same bytes as `encode`, with the head taken from `heads` when the request carries a
    /// group's shared enqueue head (encoded once per group and pool, not once per visitor).
    static func encode(
        _ request: OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator,
        heads: inout EncodedHeads
    ) -> ByteBuffer {
        guard let shared = request.sharedHead else {
            return encode(request, defaultAuthority: defaultAuthority, allocator: allocator)
        }
        let head = heads.head(for: shared) {
            var buffer = allocator.buffer(capacity: 256)
            writeHead(request.head, defaultAuthority: defaultAuthority, into: &buffer)
            return buffer
        }
        var buffer = allocator.buffer(capacity: head.readableBytes + 32 + (request.body?.count ?? 0))
        buffer.writeImmutableBuffer(head)
        writeFraming(body: request.body, into: &buffer)
        return buffer
    }

    /// The request line, `Host` and the machine's header fields, each line with its CRLF.
    private static func writeHead(_ head: HTTPRequest, defaultAuthority: String, into buffer: inout ByteBuffer) {
        buffer.writeString(head.method.rawValue)
        buffer.writeStaticString(" ")
        buffer.writeString(head.path ?? "/")
        buffer.writeStaticString(" HTTP/1.1\r\nHost: ")
        buffer.writeString(head.authority ?? defaultAuthority)
        buffer.writeStaticString("\r\n")
        for field in head.headerFields {
            // The transport owns framing: a machine's own Host or Content-Length is not sent twice.
            let name = field.name
            if name == .contentLength || name == Self.hostName { continue }
            buffer.writeString(name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
    }

    /// `Content-Length` and the body when there is one, then the blank line.
    private static func writeFraming(body: [UInt8]?, into buffer: inout ByteBuffer) {
        guard let body else {
            buffer.writeStaticString("\r\n")
            return
        }
        buffer.writeStaticString("Content-Length: ")
        writeDecimal(body.count, into: &buffer)
        buffer.writeStaticString("\r\n\r\n")
        buffer.writeBytes(body)
    }

    /// `value` (≥ 0) in decimal digits, without making a `String` of it.
    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { out in
            var remaining = max(0, value)
            var count = 1
            var probe = remaining
            while probe >= 10 {
                probe /= 10
                count += 1
            }
            var index = count
            repeat {
                index -= 1
                out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            return count
        }
    }

    private static let hostName = HTTPField.Name("Host")!
}

/// A pool's encoded enqueue heads, by the shared head (`OutgoingRequest.sharedHead`) they were
/// encoded from: one per group of the run, looked up by identity.
struct EncodedHeads {
    /// More groups than this take turns in the slots (a run has a handful).
    static let capacity = 16
    private var entries: [(template: EnqueueHeaderTemplate, head: ByteBuffer)] = []
    private var nextReplaced = 0

    mutating func head(for template: EnqueueHeaderTemplate, encode: () -> ByteBuffer) -> ByteBuffer {
        for entry in entries where entry.template === template { return entry.head }
        let head = encode()
        if entries.count < Self.capacity {
            entries.append((template, head))
        } else {
            entries[nextReplaced] = (template, head)
            nextReplaced = (nextReplaced + 1) % Self.capacity
        }
        return head
    }
}
