/// JSON string writing, for the two sides that write JSON by hand: the enqueue body (`EnqueueRequest`) and
/// the embedded room's answers (`RoomJSON`). A byte helper, not a protocol decision.
package enum JSONText {
    /// `"…"` with `"`, `\`, `\n`, `\r`, `\t` and other control characters escaped; everything
    /// else, non-ASCII included, as its own UTF-8 bytes. `escapingSolidus`: `/` as `\/` too, as
    /// the SDKs' writers do (NSJSONSerialization, org.json's `JSONStringer`) — the enqueue body.
    package static func appendQuoted(_ string: String, to out: inout [UInt8], escapingSolidus: Bool = false) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(string, to: &out, escapingSolidus: escapingSolidus)
        out.append(UInt8(ascii: "\""))
    }

    /// `string`'s JSON escapes without the quotes around them: escaping goes byte by byte over
    /// ASCII bytes, so the escapes of two texts written one after the other are the escapes of
    /// the two joined (the room writes a queue URL's fixed start once).
    package static func appendEscaped(_ string: String, to out: inout [UInt8], escapingSolidus: Bool = false) {
        // Over the string's own contiguous bytes (the `utf8` view goes a byte at a time), the
        // runs between escapes copied whole: every SDK user agent has a `/` or more to escape.
        var contiguous = string
        contiguous.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard
                    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                        || (escapingSolidus && byte == UInt8(ascii: "/"))
                else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "/"): out.append(contentsOf: #"\/"#.utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
                default:
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(ASCIIByte.lowercaseHexDigit(byte >> 4))
                    out.append(ASCIIByte.lowercaseHexDigit(byte & 0x0F))
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
    }
}
