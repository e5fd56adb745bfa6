import Foundation

// The three containers of `SortedJSONEncoder`: each renders what it is given into its
// encoder's storage at once; only a nested container stays open until its parent renders.

struct SortedJSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: SortedJSONValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func put(_ bytes: [UInt8], _ key: Key) {
        encoder.append(.rendered(bytes), key: key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws { put(Array("null".utf8), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(Array((value ? "true" : "false").utf8), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(SortedJSONScalar.quoted(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try SortedJSONScalar.number(value, at: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try SortedJSONScalar.number(value, at: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(Array(String(value).utf8), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(Array(String(value).utf8), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.append(try encoder.rendered(value, key: key), key: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = encoder.child(key)
        encoder.append(.open(child), key: key.stringValue)
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = encoder.child(key)
        encoder.append(.open(child), key: key.stringValue)
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: SortedJSONIndexKey(stringValue: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let child = encoder.child(key)
        encoder.append(.open(child), key: key.stringValue)
        return child
    }
}

struct SortedJSONUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: SortedJSONValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.elementCount }

    private var nextKey: SortedJSONIndexKey { SortedJSONIndexKey(intValue: count) }

    mutating func encodeNil() throws { encoder.append(.rendered(Array("null".utf8))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.append(try encoder.rendered(value, key: nextKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = encoder.child(nextKey)
        encoder.append(.open(child))
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = encoder.child(nextKey)
        encoder.append(.open(child))
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(nextKey)
        encoder.append(.open(child))
        return child
    }
}

struct SortedJSONSingleValueContainer: SingleValueEncodingContainer {
    let encoder: SortedJSONValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func put(_ bytes: [UInt8]) { encoder.storage = .value(bytes) }

    mutating func encodeNil() throws { put(Array("null".utf8)) }
    mutating func encode(_ value: Bool) throws { put(Array((value ? "true" : "false").utf8)) }
    mutating func encode(_ value: String) throws { put(SortedJSONScalar.quoted(value)) }
    mutating func encode(_ value: Double) throws { put(try SortedJSONScalar.number(value, at: codingPath)) }
    mutating func encode(_ value: Float) throws { put(try SortedJSONScalar.number(value, at: codingPath)) }
    mutating func encode(_ value: Int) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: Int8) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: Int16) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: Int32) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: Int64) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: UInt) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: UInt8) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: UInt16) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: UInt32) throws { put(Array(String(value).utf8)) }
    mutating func encode(_ value: UInt64) throws { put(Array(String(value).utf8)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeValue(value)
    }
}

/// An array element's place in a coding path, and `super`.
struct SortedJSONIndexKey: CodingKey {
    private let name: String?
    var intValue: Int?
    /// Made when asked (an error's path), not for every element encoded.
    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) {
        name = stringValue
    }

    init(intValue: Int) {
        name = nil
        self.intValue = intValue
    }
}
