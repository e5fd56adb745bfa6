/// Checks the raw bytes before libyaml sees them: scenario files are UTF-8 text, so invalid
/// UTF-8 and NUL bytes (the usual signs of a binary or mis-encoded file) are refused with the
/// position where they occur instead of whatever libyaml would make of them.
enum YamlInputCheck {
    static func check(_ bytes: [UInt8]) throws(YamlError) {
        var line = 1
        var column = 1
        var index = 0
        // A UTF-8 byte order mark is allowed (libyaml skips it).
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count {
            let byte = bytes[index]
            let mark = YamlMark(line: line, column: column)
            if byte == 0 {
                throw YamlError(
                    "found a NUL byte; a scenario must be UTF-8 text, this looks like a binary file", at: mark)
            }
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else {
                throw YamlError(
                    "found the byte 0x\(hex(byte)) that is not valid UTF-8; save the scenario as UTF-8 text",
                    at: mark)
            }
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte == 0x0D {
                // CR LF counts as one line break, a lone CR as one too (as libyaml does).
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += length
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    /// The length of the well-formed UTF-8 sequence starting at `index`, or 0 if it is not one
    /// (overlong forms, surrogates and code points past U+10FFFF are ill-formed).
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}
