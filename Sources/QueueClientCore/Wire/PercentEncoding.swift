/// Small, allocation-light percent encoding and decoding (RFC 3986), so the wire formats do
/// not depend on Foundation's URL types, whose behaviour differs between platforms.
enum PercentEncoding {
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func encode(_ string: String, keeping extra: (UInt8) -> Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) || extra(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes one path segment (a `/` inside it is encoded too).
    static func pathSegment(_ string: String) -> String {
        encode(string) { byte in
            switch byte {
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }

    /// Encodes a query component (key or value): everything but unreserved characters.
    static func queryComponent(_ string: String) -> String {
        encode(string) { _ in false }
    }

    /// Android's `Uri.encode`: unreserved characters and `!'()*` stay, the rest is encoded.
    static func androidURIComponent(_ string: String) -> String {
        encode(string) { byte in
            byte == UInt8(ascii: "!") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "(")
                || byte == UInt8(ascii: ")") || byte == UInt8(ascii: "*")
        }
    }

    /// Decodes `%XX` escapes; with `plusAsSpace`, also `+` (form encoding). Invalid escapes are
    /// kept as they are; invalid UTF-8 is repaired, never fatal.
    static func decode(_ string: String, plusAsSpace: Bool = false) -> String {
        // Over the string's own contiguous bytes: every token the navigator reads passes here.
        var contiguous = string
        let needsDecoding = contiguous.withUTF8 { bytes in
            // No branch and no early exit, so the scan vectorizes (a token is ~150 bytes).
            let plus = plusAsSpace ? UInt8(ascii: "+") : UInt8(ascii: "%")
            var hits: UInt8 = 0
            for byte in bytes { hits |= (byte == UInt8(ascii: "%") ? 1 : 0) | (byte == plus ? 1 : 0) }
            return hits != 0
        }
        guard needsDecoding else { return string }
        let bytes = Array(string.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = ASCIIByte.hexValue(bytes[index + 1]), let low = ASCIIByte.hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                index += 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
