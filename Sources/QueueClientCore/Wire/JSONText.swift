/// JSON string writing, for the two sides that write JSON by hand: the enqueue body (`EnqueueRequest`) and
/// the embedded room's answers (`RoomJSON`). A byte helper, not a protocol decision.
package enum JSONText {
    /// `"…"` with `"`, `\`, `\n`, `\r`, `\t` and other control characters escaped; everything
    /// else, non-ASCII included, as its own UTF-8 bytes. `escapingSolidus`: `/` as `\/` too, as
    /// the SDKs' writers do (NSJSONSerialization, org.json's `JSONStringer`) — the enqueue body.
    package static func appendQuoted(_ string: String, to out: inout [UInt8], escapingSolidus: Bool = false) {
        out.append(UInt8(ascii: "\""))
        // Over the string's own contiguous bytes: the `utf8` view goes a byte at a time.
        var contiguous = string
        let copied = contiguous.withUTF8 { bytes in
            guard
                !bytes.contains(where: {
                    $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
                        || (escapingSolidus && $0 == UInt8(ascii: "/"))
                })
            else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "/") where escapingSolidus: out.append(contentsOf: #"\/"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(ASCIIByte.lowercaseHexDigit(byte >> 4))
                out.append(ASCIIByte.lowercaseHexDigit(byte & 0x0F))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
