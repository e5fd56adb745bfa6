import CZlib

/// The answer codings the live engine undoes: gzip and deflate, the ones every phone stack
/// advertises (OkHttp sends `Accept-Encoding: gzip` and inflates what comes back; CFNetwork and
/// the WebViews add `br`, which is left as sent — a body queuesim cannot read then fails as one
/// that is not JSON, and only the enqueue answer's body is read at all).
enum ContentCoding: Equatable {
    case gzip
    case deflate

    /// The coding a `Content-Encoding` value names, when it is one of these alone.
    init?(_ value: some Collection<UInt8>) {
        var lowered: [UInt8] = []
        for byte in value where byte != 0x20 && byte != 0x09 {
            lowered.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
        }
        switch String(decoding: lowered, as: UTF8.self) {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    /// `body` inflated, at most `limit` bytes; nil when it does not inflate (or is longer).
    /// `deflate` is zlib-wrapped by RFC 9110, but some servers send raw deflate: both are read,
    /// as browsers do.
    func decode(_ body: [UInt8], limit: Int) -> [UInt8]? {
        guard !body.isEmpty else { return body }
        switch self {
        case .gzip: return Self.inflate(body, windowBits: 15 + 16, limit: limit)
        case .deflate:
            return Self.inflate(body, windowBits: 15, limit: limit) ?? Self.inflate(body, windowBits: -15, limit: limit)
        }
    }

    private static func inflate(_ input: [UInt8], windowBits: Int32, limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        return input.withUnsafeBufferPointer { source -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else { return nil }
                if status == Z_STREAM_END { return output }
                // Anything but progress (an error, or input used up before the stream's end)
                // is a body that does not inflate.
                guard status == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }
}
