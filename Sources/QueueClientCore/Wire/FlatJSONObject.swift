/// A fast reader for the one JSON shape the enqueue API answers with: a flat object whose
/// values are plain strings, `null` or integers.
///
/// `JSONSerialization` is slow on Linux (it builds Foundation objects for every member), and
/// a million-visitor virtual run parses a million enqueue answers. This reader accepts only a
/// strict subset — no escapes but `\/` in values, no nested values, no fractions, no duplicate
/// keys, valid UTF-8 —
/// and returns nil for anything else, so callers fall back to `JSONSerialization`: inside the
/// subset both read the same members, outside it nothing changes.
///
/// Public because the embedded room reads the SDK's enqueue body with it. That is sharing a
/// JSON reader — as both sides shared `JSONSerialization` before — not the client's protocol
/// decisions: what the members mean stays written twice, once on each side of the wire.
package enum FlatJSONObject {
    package enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case null
    }

    /// The members of an object in the subset, in order. A handful of members: looked up by
    /// scanning, so reading one answer allocates one array rather than a hashed dictionary.
    package struct Members: Sendable {
        fileprivate var pairs: [(key: String, value: Value)] = []

        package init(_ members: [String: Value]) {
            pairs = members.map { ($0.key, $0.value) }
        }

        fileprivate init() {}

        package subscript(key: String) -> Value? {
            pairs.first(where: { $0.key == key })?.value
        }

        package var count: Int { pairs.count }
    }

    /// The members of `body`, or nil when it is not in the subset (not necessarily invalid JSON).
    package static func parse(_ body: [UInt8]) -> [String: Value]? {
        parseMembers(body).map { Dictionary(uniqueKeysWithValues: $0.pairs) }
    }

    /// The same reading as `parse`, without building a dictionary. Keys compare as `String`s
    /// (as dictionary keys do), so a duplicate key refuses the same bodies.
    package static func parseMembers(_ body: [UInt8]) -> Members? {
        body.withUnsafeBufferPointer { bytes in
            var reader = Reader(bytes: bytes, keeping: nil)
            return reader.object()
        }
    }

    /// The same reading, accepting and refusing the same bodies, but keeping only the values
    /// of `keys`: other string values are checked and read as `.null` (the room reads two
    /// members of the SDK's enqueue body and need not copy its user agent for every visitor).
    package static func parseMembers(_ body: [UInt8], keeping keys: [String]) -> Members? {
        body.withUnsafeBufferPointer { bytes in
            var reader = Reader(bytes: bytes, keeping: keys)
            return reader.object()
        }
    }

    /// How `select` read a body.
    package enum Selection: Sendable, Equatable {
        /// In the subset: every member whose key is one of the selected keys was handed over.
        case selected
        /// Not in the subset (the same bodies `parseMembers` refuses).
        case notFlat
        /// A key is not ASCII (or there are more than `selectableMemberLimit` members): `String`
        /// equality of keys is canonical equivalence, which bytes cannot decide, so the caller
        /// reads the body with `parseMembers` instead.
        case undecided
    }

    static let selectableMemberLimit = 32

    /// The reading of `parseMembers(_:keeping:)` without making a `String` of any key: hands
    /// each member whose key's bytes equal one of `keys` (ASCII) to `found`, with that key's
    /// index, as the object is read. What was handed over counts only when the answer is
    /// `.selected`. Every enqueue answer is read this way (once per visitor on both clocks).
    package static func select(
        _ body: [UInt8], keys: [[UInt8]], found: (_ keyIndex: Int, _ value: Value) -> Void
    ) -> Selection {
        body.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: selectableMemberLimit) { seenKeys in
                var reader = Reader(bytes: bytes, keeping: nil)
                return reader.select(keys: keys, seenKeys: seenKeys, found: found)
            }
        }
    }

    /// `select` into `state`, which `found` changes: a caller's value read into a local the
    /// closure captured was copied out of the capture at the end (a retain and a release of
    /// each of its texts); one passed `inout` is moved.
    package static func select<State>(
        _ body: [UInt8], keys: [[UInt8]], into state: inout State,
        found: (_ state: inout State, _ keyIndex: Int, _ value: Value) -> Void
    ) -> Selection {
        select(body, keys: keys) { keyIndex, value in found(&state, keyIndex, value) }
    }

    /// Whether any of the eight bytes in `word` is a quote, a backslash, a control byte
    /// (< 0x20) or not ASCII (≥ 0x80): the bytes a string's scan must look at one by one.
    /// The classic SWAR tests: a byte of `word ^ repeated(b)` is zero where `word` has `b`,
    /// and `(x − repeated(n)) & ~x & repeated(0x80)` is nonzero when some byte of `x` is below
    /// `n` (for n ≤ 0x80; a borrow only carries out of a byte that was itself below `n`).
    static func hasSpecialStringByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- ones &* n) & ~x & highBits }
        let quote = hasByteBelow(word ^ (ones &* 0x22), 1)
        let backslash = hasByteBelow(word ^ (ones &* 0x5C), 1)
        let control = hasByteBelow(word, 0x20)
        return (quote | backslash | control | (word & highBits)) != 0
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Nil: keep every value.
        let keeping: [String]?
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, keeping: [String]?) {
            self.bytes = bytes
            self.keeping = keeping
        }

        mutating func object() -> Members? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members = Members()
            members.pairs.reserveCapacity(8)
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    guard let key = plainString() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    let keep = keeping.map { $0.contains(key) } ?? true
                    guard let value = value(keep: keep), members[key] == nil else { return nil }
                    members.pairs.append((key, value))
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return position == bytes.count ? members : nil
        }

        /// See `FlatJSONObject.select`. `seenKeys` holds the byte ranges of the keys read so
        /// far, for the duplicate check `object()` makes with `String`s.
        mutating func select(
            keys: [[UInt8]], seenKeys: UnsafeMutableBufferPointer<Range<Int>>,
            found: (Int, Value) -> Void
        ) -> Selection {
            var seen = 0
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return .notFlat }
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    guard let (key, isASCII) = plainStringBytes() else { return .notFlat }
                    guard isASCII, seen < seenKeys.count else { return .undecided }
                    // `position` is just past the key's closing quote.
                    let keyRange = (position - 1 - key.count)..<(position - 1)
                    for earlier in seenKeys[0..<seen]
                    where ASCIIByte.equal(UnsafeBufferPointer(rebasing: bytes[earlier]), key) {
                        return .notFlat
                    }
                    seenKeys[seen] = keyRange
                    seen += 1
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return .notFlat }
                    skipWhitespace()
                    let selected = keys.firstIndex { $0.withUnsafeBufferPointer { ASCIIByte.equal($0, key) } }
                    guard let value = value(keep: selected != nil) else { return .notFlat }
                    if let selected { found(selected, value) }
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "}")) else { return .notFlat }
                    break
                }
            }
            skipWhitespace()
            return position == bytes.count ? .selected : .notFlat
        }

        private mutating func value(keep: Bool) -> Value? {
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                // Both SDKs' JSON writers escape `/` (NSJSONSerialization, org.json), and every
                // user agent has one: values may carry `\/`, keys may not.
                guard let (text, isASCII, solidusEscapes) = stringBytes(allowingSolidusEscapes: true),
                    isASCII || Self.isValidUTF8(text)
                else { return nil }
                guard keep else { return .null }
                guard solidusEscapes else { return .string(String(decoding: text, as: UTF8.self)) }
                var unescaped: [UInt8] = []
                unescaped.reserveCapacity(text.count)
                for (index, byte) in text.enumerated()
                where !(byte == UInt8(ascii: "\\") && index + 1 < text.count && text[index + 1] == UInt8(ascii: "/")) {
                    unescaped.append(byte)
                }
                return .string(String(decoding: unescaped, as: UTF8.self))
            case UInt8(ascii: "n"):
                guard bytes.count - position >= 4, bytes[position + 1] == UInt8(ascii: "u"),
                    bytes[position + 2] == UInt8(ascii: "l"), bytes[position + 3] == UInt8(ascii: "l")
                else { return nil }
                position += 4
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return integer().map(Value.integer)
            default:
                return nil
            }
        }

        private static func isValidUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            var decoder = UTF8()
            var iterator = text.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }

        /// A string without escapes or control characters, valid UTF-8.
        private mutating func plainString() -> String? {
            guard let (text, isASCII) = plainStringBytes() else { return nil }
            // ASCII is valid UTF-8: the plain decoder takes its fast path.
            return isASCII ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        }

        /// The bytes between the quotes of a string without escapes or control characters
        /// (not yet checked as UTF-8), and whether they are all ASCII.
        private mutating func plainStringBytes() -> (text: UnsafeBufferPointer<UInt8>, isASCII: Bool)? {
            stringBytes(allowingSolidusEscapes: false).map { ($0.text, $0.isASCII) }
        }

        /// `plainStringBytes`, also taking `\/` when `allowingSolidusEscapes` (the text then
        /// still holds the backslashes; `solidusEscapes` says whether there were any).
        private mutating func stringBytes(allowingSolidusEscapes: Bool) -> (
            text: UnsafeBufferPointer<UInt8>, isASCII: Bool, solidusEscapes: Bool
        )? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            var isASCII = true
            var solidusEscapes = false
            while position < bytes.count {
                // Eight plain bytes at a time (no quote, backslash, control or non-ASCII byte):
                // a string's bytes are nearly all plain, and byte by byte this loop was 3 % of a
                // sweep point.
                if position + 8 <= bytes.count,
                    !FlatJSONObject.hasSpecialStringByte(
                        UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                {
                    position += 8
                    continue
                }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    position += 1
                    return (text, isASCII, solidusEscapes)
                }
                if byte == UInt8(ascii: "\\") {
                    guard allowingSolidusEscapes, position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/")
                    else { return nil }
                    solidusEscapes = true
                    position += 2
                    continue
                }
                if byte < 0x20 { return nil }
                if byte >= 0x80 { isASCII = false }
                position += 1
            }
            return nil
        }

        /// `-?(0|[1-9][0-9]*)` of at most 18 digits, not followed by a fraction or exponent.
        private mutating func integer() -> Int? {
            let negative = take(UInt8(ascii: "-"))
            let start = position
            var value = 0
            while position < bytes.count, let digit = Self.digit(bytes[position]) {
                // Past 18 digits the number is refused below; accumulating them would overflow
                // `Int` and trap (a 20-digit member in an enqueue body crashed the room).
                if position - start < 18 { value = value * 10 + digit }
                position += 1
            }
            let digits = position - start
            guard digits >= 1, digits <= 18, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
            if position < bytes.count,
                bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: "e")
                    || bytes[position] == UInt8(ascii: "E")
            {
                return nil
            }
            return negative ? -value : value
        }

        private static func digit(_ byte: UInt8) -> Int? {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
        }

        private mutating func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A
                    || bytes[position] == 0x0D
            {
                position += 1
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
    }
}
