import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import QueueClientCore

/// One h2 stream's answer, frame by frame: the `:status` and the fields the client core reads
/// (`IncomingResponse.fieldsReadByMachines`, as the HTTP/1.1 parser keeps them), the body up
/// to `HTTP1ResponseParser.maxBodyBytes`, inflated by its `content-encoding` (`ContentCoding`)
/// when the stream ends.
///
/// It also judges whether the answer is well-formed (RFC 9113 §8.1.1, §8.2, §8.3.2), as a
/// phone's stack does before it hands an answer on: the frame codec (`H2FrameCodec`) checks
/// frames, not fields, so the answer's fields are checked here, in the one pass that reads
/// them (NIOHTTP2's own check, one switch for both directions, cost a fifth of the client's
/// CPU per request). A malformed answer fails its request in words (`unreadable`).
struct H2AnswerReader {
    private var head: HTTPResponse?
    private var body: [UInt8] = []
    private var coding: ContentCoding?
    /// The body's length the answer declares (`content-length`; 0 for a HEAD or a 304).
    private var declaredLength: Int?
    /// The request was a HEAD: its answer's `content-length` describes a body never sent.
    private let headRequest: Bool
    /// Some of the answer has come (a reset after it is not a request the server never saw).
    private(set) var receivedAnything = false

    init(headRequest: Bool = false) {
        self.headRequest = headRequest
    }

    enum Reading: Equatable {
        case partial
        case answered(IncomingResponse)
        /// The answer cannot be read (`reason`, in words): the stream is done with.
        case unreadable(String)
    }

    /// A HEADERS block: the answer's head, an informational head (skipped), or trailers.
    mutating func headers(_ block: HPACKHeaders, endStream: Bool) -> Reading {
        receivedAnything = true
        guard head == nil else {
            // Trailers: they end the stream (RFC 9113 §8.1) and carry no pseudo-header field.
            guard endStream else { return .unreadable("an HTTP/2 answer with a HEADERS block after its head") }
            if let malformed = AnswerFields.read(block, trailers: true).malformed { return .unreadable(malformed) }
            return complete()
        }
        let fields = AnswerFields.read(block, trailers: false)
        if let malformed = fields.malformed { return .unreadable(malformed) }
        guard let code = fields.status else { return .unreadable("an HTTP/2 answer without a valid :status") }
        // 1xx heads come before the answer's own (RFC 9113 §8.1); 101 is forbidden in h2.
        if code < 200 { return endStream ? .unreadable("an HTTP/2 stream ended after a 1xx head") : .partial }
        coding = fields.coding
        declaredLength = headRequest || code == 304 ? 0 : fields.contentLength
        head = HTTPResponse(status: HTTPResponse.Status(code: code), headerFields: fields.kept)
        return endStream ? complete() : .partial
    }

    /// A DATA frame's bytes.
    mutating func data(_ bytes: ByteBuffer, endStream: Bool) -> Reading {
        receivedAnything = true
        guard head != nil else { return .unreadable("HTTP/2 DATA before the answer's head") }
        let length = body.count + bytes.readableBytes
        if let declaredLength, length > declaredLength {
            return .unreadable("an HTTP/2 answer with more DATA than its content-length (\(declaredLength))")
        }
        guard length <= HTTP1ResponseParser.maxBodyBytes else {
            return .unreadable("an answer over \(HTTP1ResponseParser.maxBodyBytes >> 20) MiB")
        }
        body.append(contentsOf: bytes.readableBytesView)
        return endStream ? complete() : .partial
    }

    private mutating func complete() -> Reading {
        guard let head = head.take() else { return .unreadable("an HTTP/2 stream ended without an answer") }
        if let declaredLength, body.count != declaredLength {
            return .unreadable(
                "an HTTP/2 answer whose DATA (\(body.count) bytes) ended short of its content-length (\(declaredLength))"
            )
        }
        var decoded = body
        if let coding {
            guard let inflated = coding.decode(body, limit: HTTP1ResponseParser.maxBodyBytes) else {
                return .unreadable("a \(coding) body that does not inflate")
            }
            decoded = inflated
        }
        self = H2AnswerReader(headRequest: headRequest)
        return .answered(IncomingResponse(head: head, body: decoded))
    }
}

/// One answer HEADERS block read in one pass: what the reader keeps, and the first rule of
/// RFC 9113 it breaks, if any. The rules are those NIOHTTP2's validation applied to answers
/// (`HPACKHeaders+Validation.swift`, `ContentLengthVerifier`): field names are lowercase tokens;
/// pseudo-header fields come first, only `:status`, once, and never in trailers; no
/// connection-specific field (§8.2.2); no NUL, CR or LF in a value, nor a control byte or space
/// in a pseudo-header's; every `content-length` the same whole number.
struct AnswerFields {
    var status: Int?
    var kept = HTTPFields()
    var coding: ContentCoding?
    var contentLength: Int?
    /// Why the block is malformed, in words; nil when it is well-formed.
    var malformed: String?

    static func read(_ block: HPACKHeaders, trailers: Bool) -> AnswerFields {
        var fields = AnswerFields()
        var regularSeen = false
        for (name, value, _) in block {
            if name.utf8.first == UInt8(ascii: ":") {
                fields.malformed = fields.pseudo(name, value, trailers: trailers, after: regularSeen)
            } else {
                regularSeen = true
                fields.malformed = fields.regular(name, value, trailers: trailers)
            }
            if fields.malformed != nil { return fields }
        }
        if !trailers, fields.status == nil { fields.malformed = "an HTTP/2 answer without a valid :status" }
        return fields
    }

    private mutating func pseudo(_ name: String, _ value: String, trailers: Bool, after regularSeen: Bool) -> String? {
        if trailers { return "HTTP/2 trailers with a pseudo-header field (\(name))" }
        if regularSeen { return "an HTTP/2 answer with a pseudo-header field after a regular one (\(name))" }
        guard name == ":status" else { return "an HTTP/2 answer with a pseudo-header field it may not carry (\(name))" }
        guard status == nil else { return "an HTTP/2 answer with two :status fields" }
        guard value.utf8.count == 3, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let code = Int(value), code >= 100
        else { return "an HTTP/2 answer without a valid :status" }
        status = code
        return nil
    }

    private mutating func regular(_ name: String, _ value: String, trailers: Bool) -> String? {
        guard Self.isLowercaseToken(name) else { return "an HTTP/2 answer with an invalid field name" }
        guard !value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
            return "an HTTP/2 answer with NUL, CR or LF in the value of \(name)"
        }
        // Most fields (date, server, content-type) have a length no name below has: skipped
        // without comparing or hashing them.
        let length = name.utf8.count
        guard length < 64, Self.namedLengths & (1 << length) != 0 else { return nil }
        switch name {
        case "connection", "transfer-encoding", "proxy-connection", "keep-alive", "upgrade":
            return "an HTTP/2 answer with a connection-specific field (\(name))"
        case "content-length":
            guard !trailers else { return nil }
            guard let length = Int(value), length >= 0, value.utf8.first != UInt8(ascii: "+") else {
                return "an HTTP/2 answer with a malformed content-length"
            }
            if let contentLength, contentLength != length {
                return "an HTTP/2 answer with content-length fields that disagree"
            }
            contentLength = length
        case "content-encoding":
            if !trailers { coding = ContentCoding(value.utf8) }
        default:
            if !trailers, let name = Self.kept[name] { kept.append(HTTPField(name: name, value: value)) }
        }
        return nil
    }

    /// A token (RFC 9110 §5.6.2) without uppercase letters, as h2 field names must be.
    private static func isLowercaseToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x5E...0x7A, 0x7C, 0x7E: true
                default: false
                }
            }
    }

    /// A bit per length of the names `regular` looks at: the forbidden, the two it reads and
    /// the kept.
    private static let namedLengths: UInt64 = (forbidden + ["content-length", "content-encoding"] + Array(kept.keys))
        .reduce(0) { mask, name in mask | 1 << name.utf8.count }

    /// Connection-specific fields (RFC 9113 §8.2.2), as `regular`'s switch names them.
    private static let forbidden = ["connection", "transfer-encoding", "proxy-connection", "keep-alive", "upgrade"]

    /// The kept fields by their h2 (lowercase) names.
    private static let kept: [String: HTTPField.Name] = Dictionary(
        uniqueKeysWithValues: IncomingResponse.fieldsReadByMachines.map { ($0.canonicalName, $0) })
}
