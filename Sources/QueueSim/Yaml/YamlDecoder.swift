/// A `Decoder` over a `YamlNode` tree, so scenario files decode into plain `Decodable` types.
///
/// Two things differ from `JSONDecoder`, both so that one pass reports every problem:
/// - a value that fails to decode where the type allows it to be absent (`decodeIfPresent`,
///   which synthesized `init(from:)` uses for optionals) is recorded as a problem and read as
///   nil, and decoding goes on;
/// - when a type's `CodingKeys` are `CaseIterable`, keys not among them are recorded as
///   problems, with a "did you mean" when a known key is close.
/// Every problem carries the position of the node it is about.
package struct YamlDecoder: Sendable {
    /// Where an unknown key belongs instead (`outflow` → "`waitingRoom`"), for keys written in
    /// the wrong section; used when no known key of the section is close.
    package var misplacedKeyHints: [String: String]

    package init(misplacedKeyHints: [String: String] = [:]) {
        self.misplacedKeyHints = misplacedKeyHints
    }

    package func decode<T: Decodable>(_ type: T.Type, from node: YamlNode) -> (value: T?, problems: [YamlError]) {
        let state = YamlDecodingState(misplacedKeyHints: misplacedKeyHints)
        let decoder = YamlNodeDecoder(node: node, codingPath: [], state: state)
        do {
            let value = try T(from: decoder)
            return (value, state.uniqueProblems)
        } catch {
            state.record(error, at: node.mark)
            return (nil, state.uniqueProblems)
        }
    }
}

/// `Positioned<Value>`: a decoded value and where it was written.
package struct Positioned<Value: Decodable & Sendable>: Decodable, Sendable {
    package var value: Value
    package var mark: YamlMark

    package init(_ value: Value, at mark: YamlMark) {
        self.value = value
        self.mark = mark
    }

    package init(from decoder: any Decoder) throws {
        guard let yaml = decoder as? YamlNodeDecoder else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Positioned decodes only from YAML"))
        }
        self.mark = yaml.node.mark
        self.value = try Value(from: decoder)
    }
}

extension YamlNode: Decodable {
    /// The node itself, for values whose meaning depends on their shape (a literal or a CSV
    /// feeder, a duration written as a number or a string).
    package init(from decoder: any Decoder) throws {
        guard let yaml = decoder as? YamlNodeDecoder else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "YamlNode decodes only from YAML"))
        }
        try yaml.checkTag(reads: .shaped)
        self = yaml.node
    }
}

final class YamlDecodingState {
    private(set) var problems: [YamlError] = []
    let misplacedKeyHints: [String: String]

    init(misplacedKeyHints: [String: String]) {
        self.misplacedKeyHints = misplacedKeyHints
    }

    /// The key names each `CodingKeys` type knows, nil for one that is not `CaseIterable`.
    /// Asked once per mapping: a scenario of 2,000 groups asked it 2,000 times for the same
    /// type, each time casting every case to `CodingKey` (a third of decoding such a file).
    private var knownKeysByType: [ObjectIdentifier: KnownKeys?] = [:]

    /// A type's key names in declaration order (for messages) and as a set (for lookups).
    struct KnownKeys {
        var names: [String]
        var set: Set<String>
    }

    func knownKeys<Key: CodingKey>(of type: Key.Type) -> KnownKeys? {
        if let known = knownKeysByType[ObjectIdentifier(type)] { return known }
        let known = YamlKnownKeys.names(of: type).map { KnownKeys(names: $0, set: Set($0)) }
        knownKeysByType[ObjectIdentifier(type)] = known
        return known
    }

    func record(_ error: any Error, at mark: YamlMark) {
        if let yaml = error as? YamlError {
            problems.append(yaml)
        } else {
            problems.append(YamlError(wording: error, at: mark))
        }
    }

    var uniqueProblems: [YamlError] {
        var seen: Set<String> = []
        return problems.filter { seen.insert($0.description).inserted }
    }
}

struct YamlNodeDecoder: Decoder {
    let node: YamlNode
    let codingPath: [any CodingKey]
    let state: YamlDecodingState
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// "`target.customerId`", or "the file" at the top.
    var pathDescription: String { YamlPath.describe(codingPath) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let pairs) = node.content else {
            throw YamlError(
                "expected a mapping (key: value lines) for \(pathDescription), found \(node.kindDescription)",
                at: node.mark)
        }
        if let known = state.knownKeys(of: Key.self) {
            for pair in pairs {
                guard let name = pair.key.scalarText, !known.set.contains(name) else { continue }
                state.record(
                    YamlKnownKeys.unknownKeyError(
                        name, at: pair.key.mark, known: known.names, in: pathDescription,
                        belongsIn: state.misplacedKeyHints[name]),
                    at: pair.key.mark)
            }
        }
        return KeyedDecodingContainer(YamlKeyedContainer<Key>(decoder: self, pairs: pairs))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let items) = node.content else {
            throw YamlError(
                "expected a list (lines starting with `- `, or [a, b]) for \(pathDescription), found \(node.kindDescription)",
                at: node.mark)
        }
        return YamlUnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        YamlScalarContainer(decoder: self)
    }

    func child(_ node: YamlNode, key: any CodingKey) -> YamlNodeDecoder {
        YamlNodeDecoder(node: node, codingPath: codingPath + [key], state: state)
    }
}

enum YamlPath {
    static func describe(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return "`\(text)`"
    }
}

struct YamlIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
