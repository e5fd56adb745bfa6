/// The three container kinds of `YamlNodeDecoder`.

struct YamlKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder and its mapping's pairs behind one reference: the standard library's box
    /// copies its container for every key asked, and a group is asked twenty-one (issue 51).
    private let mapping: YamlMappingStorage
    var decoder: YamlNodeDecoder { mapping.decoder }
    var pairs: [YamlPair] { mapping.pairs }

    init(decoder: YamlNodeDecoder, pairs: [YamlPair]) {
        mapping = YamlMappingStorage(decoder: decoder, pairs: pairs)
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { pairs.compactMap { $0.key.scalarText.flatMap(Key.init(stringValue:)) } }

    func contains(_ key: Key) -> Bool { value(for: key) != nil }

    private func value(for key: Key) -> YamlNode? { mapping.value(for: key.stringValue) }

    private func required(_ key: Key) throws -> YamlNodeDecoder {
        guard let node = value(for: key) else {
            let container = YamlPath.describe(codingPath)
            throw YamlError("missing the required key `\(key.stringValue)` in \(container)", at: decoder.node.mark)
        }
        return decoder.child(node, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { value(for: key)?.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: required(key))
    }

    /// Absent or null: nil. Present but wrong: the problem is recorded and the value is nil, so
    /// the rest of the file is still checked.
    func lenient<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
        guard let node = value(for: key), !node.isNull else { return nil }
        do {
            return try T(from: decoder.child(node, key: key))
        } catch {
            decoder.state.record(error, at: node.mark)
            return nil
        }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { lenient(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { lenient(type, forKey: key) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T { try T(from: required(key)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try required(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try required(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try required(key) }
}

final class YamlMappingStorage {
    let decoder: YamlNodeDecoder
    let pairs: [YamlPair]

    init(decoder: YamlNodeDecoder, pairs: [YamlPair]) {
        self.decoder = decoder
        self.pairs = pairs
    }

    func value(for name: String) -> YamlNode? {
        // By index, comparing each key's text in place: `first(where:)` copied every pair it
        // passed (a group's twenty-one keys are asked of each group's mapping, issue 51).
        for index in pairs.indices {
            guard case .scalar(let text, _) = pairs[index].key.content, text == name else { continue }
            return pairs[index].value
        }
        return nil
    }
}

struct YamlUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: YamlNodeDecoder
    let items: [YamlNode]
    var currentIndex = 0

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> YamlNodeDecoder {
        guard !isAtEnd else {
            throw YamlError("the list \(YamlPath.describe(codingPath)) has too few items", at: decoder.node.mark)
        }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], key: YamlIndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// Scalars by the YAML 1.2 core schema: only plain scalars are numbers, booleans or null (a
/// tag that agrees with the value makes it plain; the reader refuses one that does not).
struct YamlScalarContainer: SingleValueDecodingContainer {
    let decoder: YamlNodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var node: YamlNode { decoder.node }

    func decodeNil() -> Bool { node.isNull }

    private func mismatch(_ expected: String) -> YamlError {
        YamlError("expected \(expected) for \(decoder.pathDescription), found \(node.kindDescription)", at: node.mark)
    }

    func decode(_ type: String.Type) throws -> String {
        try decoder.checkTag(reads: .text)
        guard let text = node.scalarText, !node.isNull else { throw mismatch("a text value") }
        return text
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        try decoder.checkTag(reads: .bool)
        guard case .scalar(let text, .plain) = node.content else { throw mismatch("true or false") }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: throw mismatch("true or false")
        }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try decoder.checkTag(reads: .wholeNumber)
        guard case .scalar(let text, .plain) = node.content,
            let value = T(text.hasPrefix("+") ? String(text.dropFirst()) : text)
        else {
            throw mismatch(T.isSigned ? "a whole number" : "a whole number of 0 or more")
        }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double {
        try decoder.checkTag(reads: .number)
        guard case .scalar(let text, .plain) = node.content, let value = Double(text), value.isFinite else {
            throw mismatch("a number")
        }
        return value
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
}
