import Foundation

/// Writes an `Encodable` value as the report files' JSON: keys sorted by their UTF-8 bytes,
/// slashes unescaped, pretty-printed or compact. The bytes are Foundation's `JSONEncoder`'s
/// with `[.sortedKeys, .withoutEscapingSlashes]` (and `.prettyPrinted`) to the byte — the
/// files written before it are the files written after it (`SortedJSONEncoderTests` holds the
/// two against each other) — at a fraction of the cost.
///
/// Why not `JSONEncoder`: `run.json` of a run with 2,000 groups holds 3.6 MB of per-group
/// figures, and `JSONEncoder` builds a tree of every value, asks a dozen dynamic casts of each
/// (is it a `Date`, a `URL`, an array of numbers…) and sorts every object's keys through a
/// dictionary: a fifth of such a run's time (issue 51). This encoder renders each value to
/// bytes as soon as it is encoded, so an object only sorts its members' finished bytes.
package struct SortedJSONEncoder {
    package var pretty: Bool

    package init(pretty: Bool) {
        self.pretty = pretty
    }

    /// `depth`: the level `value` stands at in a larger document (its closing bracket's
    /// indentation), for a member rendered ahead of its object (`RunManifest.renderLargeMembers`).
    package func encode(_ value: some Encodable, depth: Int = 0) throws -> [UInt8] {
        let encoder = SortedJSONValueEncoder(
            pretty: pretty, depth: depth, codingPath: [], orders: SortedJSONKeyOrders())
        try encoder.encodeValue(value)
        return encoder.render()
    }
}

/// One value being encoded: what it holds so far, and how deep it stands (the indentation of its
/// closing bracket when pretty-printed).
final class SortedJSONValueEncoder: Encoder {
    /// A member or element: bytes already rendered, or a container still open to its encoder.
    enum Part {
        case rendered([UInt8])
        case open(SortedJSONValueEncoder)

        var bytes: [UInt8] {
            switch self {
            case .rendered(let bytes): bytes
            case .open(let encoder): encoder.render()
            }
        }
    }

    enum Storage {
        case empty
        case object([(key: String, part: Part)])
        case array([Part])
        case value([UInt8])
    }

    let pretty: Bool
    let depth: Int
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var storage = Storage.empty
    /// Shared by every encoder of one value.
    let orders: SortedJSONKeyOrders

    init(pretty: Bool, depth: Int, codingPath: [any CodingKey], orders: SortedJSONKeyOrders) {
        self.pretty = pretty
        self.depth = depth
        self.codingPath = codingPath
        self.orders = orders
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = storage {} else { storage = .object([]) }
        return KeyedEncodingContainer(SortedJSONKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = storage {} else { storage = .array([]) }
        return SortedJSONUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SortedJSONSingleValueContainer(encoder: self)
    }

    /// A child one level deeper, for a member or an element.
    func child(_ key: any CodingKey) -> SortedJSONValueEncoder {
        SortedJSONValueEncoder(pretty: pretty, depth: depth + 1, codingPath: codingPath + [key], orders: orders)
    }

    func append(_ part: Part, key: String) {
        guard case .object(var members) = storage else { return }
        storage = .empty
        members.append((key, part))
        storage = .object(members)
    }

    func append(_ part: Part) {
        guard case .array(var elements) = storage else { return }
        storage = .empty
        elements.append(part)
        storage = .array(elements)
    }

    var elementCount: Int {
        if case .array(let elements) = storage { return elements.count }
        return 0
    }

    /// Encodes `value` into this encoder: scalars straight to bytes, anything else through its
    /// own `encode(to:)`.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if let bytes = try SortedJSONScalar.bytes(of: value, at: codingPath) {
            storage = .value(bytes)
        } else {
            try value.encode(to: self)
        }
    }

    /// `value` rendered one level below this encoder, under `key`.
    func rendered<T: Encodable>(_ value: T, key: any CodingKey) throws -> Part {
        // The path is made only for an error: a run of 2,000 groups encodes some 200,000 members.
        if let bytes = try SortedJSONScalar.bytes(of: value, at: self.codingPath + [key]) { return .rendered(bytes) }
        if T.self == [String].self {
            // A list of names (the pending file's 2,000 groups) without an encoder per name.
            var json = DirectJSON(pretty: pretty, depth: depth + 1)
            json.array(unsafeBitCast(value, to: [String].self))
            return .rendered(json.bytes)
        }
        let child = child(key)
        try value.encode(to: child)
        return .rendered(child.render())
    }

    /// The value's bytes. A value that encoded nothing is `{}`, as `JSONEncoder` writes it.
    func render() -> [UInt8] {
        switch storage {
        case .value(let bytes): return bytes
        case .empty: return renderObject([])
        case .object(let members): return renderObject(members)
        case .array(let elements): return renderArray(elements)
        }
    }

    private func renderObject(_ members: [(key: String, part: Part)]) -> [UInt8] {
        let order = orders.order(of: members)
        var out: [UInt8] = [UInt8(ascii: "{")]
        if pretty { out.append(UInt8(ascii: "\n")) }
        var first = true
        for index in order {
            if !first { out.append(UInt8(ascii: ",")) }
            if pretty {
                if !first { out.append(UInt8(ascii: "\n")) }
                indent(&out, depth + 1)
            }
            first = false
            SortedJSONScalar.appendString(members[index].key, to: &out)
            if pretty {
                out.append(UInt8(ascii: " "))
                out.append(UInt8(ascii: ":"))
                out.append(UInt8(ascii: " "))
            } else {
                out.append(UInt8(ascii: ":"))
            }
            out.append(contentsOf: members[index].part.bytes)
        }
        close(&out, UInt8(ascii: "}"))
        return out
    }

    private func renderArray(_ elements: [Part]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        if pretty { out.append(UInt8(ascii: "\n")) }
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if pretty {
                if index > 0 { out.append(UInt8(ascii: "\n")) }
                indent(&out, depth + 1)
            }
            out.append(contentsOf: element.bytes)
        }
        close(&out, UInt8(ascii: "]"))
        return out
    }

    /// The closing bracket; pretty, on its own line (an empty container keeps an empty line).
    private func close(_ out: inout [UInt8], _ bracket: UInt8) {
        if pretty {
            out.append(UInt8(ascii: "\n"))
            indent(&out, depth)
        }
        out.append(bracket)
    }

    private func indent(_ out: inout [UInt8], _ level: Int) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }
}

/// The order an object's members are written in, remembered by their keys: objects of one type
/// list the same keys in the same order (run.json's 2,000 groups' figures, the pending file's
/// 2,000 groups), so each shape is sorted once; sorting every object was a fifth of the
/// encoder's time (issue 51).
final class SortedJSONKeyOrders {
    /// A few shapes per member count (dictionaries' keys come in any order: not all are kept).
    private var shapes: [Int: [(keys: [String], order: [Int])]] = [:]
    private static let shapesPerCount = 16

    func order(of members: [(key: String, part: SortedJSONValueEncoder.Part)]) -> [Int] {
        let known = shapes[members.count] ?? []
        for shape in known where shape.keys.elementsEqual(members.lazy.map(\.key)) { return shape.order }
        // Sorted by the keys' bytes; a key encoded twice keeps its last value, as a dictionary
        // would: the earlier ones are left out here, once per shape.
        let sorted = members.indices.sorted { left, right in
            let (a, b) = (members[left].key, members[right].key)
            return a == b ? left < right : SortedJSONScalar.bytesPrecede(a, b)
        }
        let order = sorted.indices.filter { position in
            position + 1 == sorted.count || members[sorted[position + 1]].key != members[sorted[position]].key
        }.map { sorted[$0] }
        if known.count < Self.shapesPerCount { shapes[members.count, default: []].append((members.map(\.key), order)) }
        return order
    }
}

/// Numbers, strings, booleans and null as `JSONEncoder` writes them.
enum SortedJSONScalar {
    /// The bytes of `value` when it is a scalar queuesim's files hold, else nil.
    static func bytes<T: Encodable>(of value: T, at path: @autoclosure () -> [any CodingKey]) throws -> [UInt8]? {
        // Type identity, not `as?` casts: comparing metadata costs next to nothing.
        if T.self == String.self { return quoted(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return Array(String(unsafeBitCast(value, to: Int.self)).utf8) }
        if T.self == UInt64.self { return Array(String(unsafeBitCast(value, to: UInt64.self)).utf8) }
        if T.self == Int64.self { return Array(String(unsafeBitCast(value, to: Int64.self)).utf8) }
        if T.self == Int32.self { return Array(String(unsafeBitCast(value, to: Int32.self)).utf8) }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), at: path()) }
        if T.self == Bool.self { return Array((unsafeBitCast(value, to: Bool.self) ? "true" : "false").utf8) }
        return nil
    }

    static func quoted(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count + 2)
        appendString(string, to: &out)
        return out
    }

    /// A finite number as `description` writes it, without a trailing `.0`; NaN and the
    /// infinities are refused, as `JSONEncoder` refuses them.
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F, at path: [any CodingKey])
        throws -> [UInt8]
    {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "\(value) cannot be written in JSON"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return Array(text.utf8)
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s: the bytes compared in place, since going
    /// through two `UTF8View` iterators was a tenth of writing run.json (issue 51).
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { left in
            b.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    /// `"…"` with JSON's escapes; `/` and every non-ASCII character as they are.
    static func appendString(_ string: String, to out: inout [UInt8]) {
        var string = string
        // Most texts need no escape: copied whole rather than byte by byte (the bytes loop was
        // the largest single cost of writing run.json, issue 51).
        let plain = string.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            out.reserveCapacity(out.count + bytes.count + 2)
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if plain { return }
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
