import HTTPTypes
import NIOCore
import QueueClientCore

/// A request as HTTP/1.1 bytes: the request line, then the head's fields in order with the
/// transport's own `Host` and `Content-Length` lines where the request's `layout` puts them
/// (the platform's stack's order, docs/client-core.md), a blank line and the body.
enum LiveRequestEncoding {
    /// `Host` is the request's own authority (the waiting-room host, even when the connection
    /// goes elsewhere: `target.endpoint`'s connect-to).
    static func encode(
        _ request: OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator,
        reusing spare: consuming ByteBuffer? = nil
    ) -> ByteBuffer {
        let head = request.head
        var size = 64 + (head.path?.utf8.count ?? 1) + (head.authority ?? defaultAuthority).utf8.count
        for field in head.headerFields { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        var buffer = Self.buffer(
            capacity: size + (request.body?.count ?? 0), allocator: allocator, reusing: consume spare)
        var rest = buffer
        writeHead(request, defaultAuthority: defaultAuthority, into: &buffer, afterContentLength: &rest)
        if let body = request.body { writeContentLength(body.count, into: &buffer) }
        buffer.writeImmutableBuffer(rest)
        writeEnd(body: request.body, into: &buffer)
        return buffer
    }

    /// The same bytes as `encode`, with the head taken from `heads` when the request carries a
    /// group's shared enqueue head (encoded once per group and pool, not once per visitor).
    /// `spare`: a buffer of an earlier request to write into, when nothing else holds it any
    /// more (a shared connection's last request, written): its memory is used again instead of
    /// a new buffer's two allocations per request.
    static func encode(
        _ request: borrowing OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator,
        heads: inout EncodedHeads, reusing spare: consuming ByteBuffer? = nil
    ) -> ByteBuffer {
        if let page = request.sharedPageFields, request.layout == .hostFirst {
            return encodePageLoad(
                request, fields: page, defaultAuthority: defaultAuthority, allocator: allocator, heads: &heads,
                reusing: consume spare)
        }
        guard let shared = request.sharedHead else {
            return encode(request, defaultAuthority: defaultAuthority, allocator: allocator, reusing: consume spare)
        }
        // Looked up, then encoded on a miss, without a closure: one capturing `request` copied it
        // (a retain and release of each of its references) for every visitor's enqueue.
        let head: EncodedHead
        if let known = heads.head(for: shared) {
            head = known
        } else {
            var before = allocator.buffer(capacity: 256)
            var after = allocator.buffer(capacity: 64)
            writeHead(request, defaultAuthority: defaultAuthority, into: &before, afterContentLength: &after)
            head = EncodedHead(beforeContentLength: before, afterContentLength: after)
            heads.remember(head, for: shared)
        }
        var buffer = Self.buffer(
            capacity: head.beforeContentLength.readableBytes + head.afterContentLength.readableBytes + 32
                + (request.body?.count ?? 0), allocator: allocator, reusing: consume spare)
        buffer.writeImmutableBuffer(head.beforeContentLength)
        if let body = request.body { writeContentLength(body.count, into: &buffer) }
        buffer.writeImmutableBuffer(head.afterContentLength)
        writeEnd(body: request.body, into: &buffer)
        return buffer
    }

    /// A WebView page load: the request line and `Host`, then the group's fields encoded once,
    /// the visitor's `Cookie` (the one field that is not the group's) at its place.
    private static func encodePageLoad(
        _ request: OutgoingRequest, fields page: PageFieldsTemplate, defaultAuthority: String,
        allocator: ByteBufferAllocator, heads: inout EncodedHeads, reusing spare: consuming ByteBuffer?
    ) -> ByteBuffer {
        let split = page.cookieIndex ?? page.fields.count
        let encoded = heads.pageFields(for: page) {
            var before = allocator.buffer(capacity: 512)
            var after = allocator.buffer(capacity: 256)
            for (index, field) in page.fields.enumerated() {
                if index < split { writeField(field, into: &before) } else { writeField(field, into: &after) }
            }
            return EncodedHead(beforeContentLength: before, afterContentLength: after)
        }
        let head = request.head
        let authority = head.authority ?? defaultAuthority
        let fields = head.headerFields
        let cookie = fields.count == page.fields.count + 1 ? fields[split] : nil
        var buffer = Self.buffer(
            capacity: 40 + (head.path?.utf8.count ?? 1) + authority.utf8.count
                + encoded.beforeContentLength.readableBytes
                + encoded.afterContentLength.readableBytes + (cookie.map { $0.value.utf8.count + 10 } ?? 0),
            allocator: allocator, reusing: consume spare)
        buffer.writeString(head.method.rawValue)
        buffer.writeStaticString(" ")
        buffer.writeString(head.path ?? "/")
        buffer.writeStaticString(" HTTP/1.1\r\n")
        writeHost(authority, into: &buffer)
        buffer.writeImmutableBuffer(encoded.beforeContentLength)
        if let cookie { writeField(cookie, into: &buffer) }
        buffer.writeImmutableBuffer(encoded.afterContentLength)
        writeEnd(body: request.body, into: &buffer)
        return buffer
    }

    /// An empty buffer for a request's bytes: `spare`'s memory when it is the only holder of it
    /// (`clear` copies a buffer something else still holds, so a pending write is never touched).
    private static func buffer(capacity: Int, allocator: ByteBufferAllocator, reusing spare: consuming ByteBuffer?)
        -> ByteBuffer
    {
        // Moved, not copied: a second holder would make `clear` copy it.
        guard var buffer = consume spare else { return allocator.buffer(capacity: capacity) }
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// The request line, `Host` and the fields: those before the `Content-Length` line into
    /// `buffer`, those after it into `rest` (empty when it goes last). When `Host` and
    /// `Content-Length` go before the same field, `Content-Length` comes first (OkHttp's order).
    private static func writeHead(
        _ request: OutgoingRequest, defaultAuthority: String, into buffer: inout ByteBuffer,
        afterContentLength rest: inout ByteBuffer
    ) {
        let head = request.head
        let layout = request.layout
        let authority = head.authority ?? defaultAuthority
        buffer.writeString(head.method.rawValue)
        buffer.writeStaticString(" ")
        buffer.writeString(head.path ?? "/")
        buffer.writeStaticString(" HTTP/1.1\r\n")
        var split = false
        func write(_ line: (inout ByteBuffer) -> Void) {
            if split { line(&rest) } else { line(&buffer) }
        }
        var hostWritten = layout.hostBefore == nil
        if hostWritten { writeHost(authority, into: &buffer) }
        for field in head.headerFields {
            // The transport owns framing: a machine's own Host or Content-Length is not sent twice.
            let name = field.name
            if name == .contentLength || name == Self.hostName { continue }
            if !split, name == layout.contentLengthBefore { split = true }
            if !hostWritten, name == layout.hostBefore {
                write { writeHost(authority, into: &$0) }
                hostWritten = true
            }
            write { writeField(field, into: &$0) }
        }
        if !hostWritten { write { writeHost(authority, into: &$0) } }
    }

    private static func writeHost(_ authority: String, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("Host: ")
        buffer.writeString(authority)
        buffer.writeStaticString("\r\n")
    }

    private static func writeField(_ field: HTTPField, into buffer: inout ByteBuffer) {
        buffer.writeString(field.name.rawName)
        buffer.writeStaticString(": ")
        buffer.writeString(field.value)
        buffer.writeStaticString("\r\n")
    }

    private static func writeContentLength(_ count: Int, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("Content-Length: ")
        writeDecimal(count, into: &buffer)
        buffer.writeStaticString("\r\n")
    }

    /// The blank line and the body.
    private static func writeEnd(body: [UInt8]?, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("\r\n")
        if let body { buffer.writeBytes(body) }
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

/// A shared enqueue head's bytes, split where the request's `Content-Length` line goes. A
/// class: every request written from it takes it from `EncodedHeads`, one retain, not two.
final class EncodedHead {
    let beforeContentLength: ByteBuffer
    let afterContentLength: ByteBuffer

    init(beforeContentLength: ByteBuffer, afterContentLength: ByteBuffer) {
        self.beforeContentLength = beforeContentLength
        self.afterContentLength = afterContentLength
    }
}

/// A pool's encoded enqueue heads, by the shared head (`OutgoingRequest.sharedHead`) they were
/// encoded from: one per group of the run, looked up by identity.
struct EncodedHeads {
    /// More groups than this take turns in the slots (a run has a handful).
    static let capacity = 16
    private var heads = IdentityTable<EnqueueHeaderTemplate>()
    /// The groups' page-load fields, split where the visitor's `Cookie` goes.
    private var pages = IdentityTable<PageFieldsTemplate>()

    mutating func pageFields(for template: PageFieldsTemplate, encode: () -> EncodedHead) -> EncodedHead {
        if let known = pages.value(for: template) { return known }
        let fields = encode()
        pages.remember(fields, for: template)
        return fields
    }

    func head(for template: EnqueueHeaderTemplate) -> EncodedHead? {
        heads.value(for: template)
    }

    mutating func remember(_ head: EncodedHead, for template: EnqueueHeaderTemplate) {
        heads.remember(head, for: template)
    }

    /// Encoded bytes by their template's identity, up to `capacity` templates, the oldest
    /// replaced first. Looked up by `ObjectIdentifier`s in an array of their own: comparing the
    /// references themselves retained each one looked at, for every request.
    private struct IdentityTable<Template: AnyObject> {
        private var identities: [ObjectIdentifier] = []
        /// Kept alive, so an identity is never a later object's at the same address.
        private var templates: [Template] = []
        private var values: [EncodedHead] = []
        private var nextReplaced = 0

        func value(for template: Template) -> EncodedHead? {
            let identity = ObjectIdentifier(template)
            for index in identities.indices where identities[index] == identity { return values[index] }
            return nil
        }

        mutating func remember(_ value: EncodedHead, for template: Template) {
            if identities.count < EncodedHeads.capacity {
                identities.append(ObjectIdentifier(template))
                templates.append(template)
                values.append(value)
            } else {
                identities[nextReplaced] = ObjectIdentifier(template)
                templates[nextReplaced] = template
                values[nextReplaced] = value
                nextReplaced = (nextReplaced + 1) % EncodedHeads.capacity
            }
        }
    }
}
