import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import QueueClientCore

/// One h2 stream's answer, frame by frame: the `:status` and the fields the client core reads
/// (`IncomingResponse.fieldsReadByMachines`, as the HTTP/1.1 parser keeps them), the body up
/// to `HTTP1ResponseParser.maxBodyBytes`, inflated by its `content-encoding` (`ContentCoding`)
/// when the stream ends.
struct H2AnswerReader {
    private var head: HTTPResponse?
    private var body: [UInt8] = []
    private var coding: ContentCoding?
    /// Some of the answer has come (a reset after it is not a request the server never saw).
    private(set) var receivedAnything = false

    enum Reading {
        case partial
        case answered(IncomingResponse)
        /// The answer cannot be read (`reason`, in words): the stream is done with.
        case unreadable(String)
    }

    /// A HEADERS block: the answer's head, an informational head (skipped), or trailers.
    mutating func headers(_ block: HPACKHeaders, endStream: Bool) -> Reading {
        receivedAnything = true
        if head == nil {
            guard let statusText = block.first(name: ":status"), let code = Int(statusText), (100...999).contains(code)
            else { return .unreadable("an HTTP/2 answer without a valid :status") }
            // 1xx heads come before the answer's own (RFC 9113 §8.1); 101 is forbidden in h2.
            if code < 200 { return endStream ? .unreadable("an HTTP/2 stream ended after a 1xx head") : .partial }
            var fields = HTTPFields()
            for (name, value, _) in block where !name.hasPrefix(":") {
                if name == "content-encoding" {
                    coding = ContentCoding(value.utf8)
                } else if let kept = Self.kept[name] {
                    fields.append(HTTPField(name: kept, value: value))
                }
            }
            head = HTTPResponse(status: HTTPResponse.Status(code: code), headerFields: fields)
        }
        return endStream ? complete() : .partial
    }

    /// A DATA frame's bytes.
    mutating func data(_ bytes: ByteBuffer, endStream: Bool) -> Reading {
        receivedAnything = true
        guard head != nil else { return .unreadable("HTTP/2 DATA before the answer's head") }
        guard body.count + bytes.readableBytes <= HTTP1ResponseParser.maxBodyBytes else {
            return .unreadable("an answer over \(HTTP1ResponseParser.maxBodyBytes >> 20) MiB")
        }
        body.append(contentsOf: bytes.readableBytesView)
        return endStream ? complete() : .partial
    }

    private mutating func complete() -> Reading {
        guard let head = head.take() else { return .unreadable("an HTTP/2 stream ended without an answer") }
        var decoded = body
        if let coding {
            guard let inflated = coding.decode(body, limit: HTTP1ResponseParser.maxBodyBytes) else {
                return .unreadable("a \(coding) body that does not inflate")
            }
            decoded = inflated
        }
        self = H2AnswerReader()
        return .answered(IncomingResponse(head: head, body: decoded))
    }

    /// The kept fields by their h2 (lowercase) names.
    private static let kept: [String: HTTPField.Name] = Dictionary(
        uniqueKeysWithValues: IncomingResponse.fieldsReadByMachines.map { ($0.canonicalName, $0) })
}
