// libFuzzer entry point for the YAML reader and the scenario decoder: any bytes must give a
// tree or positioned errors, never a crash, a hang or unbounded memory.
// Built by fuzz/run-reader-fuzz.sh together with Sources/QueueSim/Yaml/*.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func yamlReaderFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    do {
        if let root = try YamlReader(environment: ["SET": "value"]).read(bytes) {
            _ = YamlDecoder().decode(FuzzShape.self, from: root)
        }
    } catch {
        // Every error must carry a position inside the input (or none at all).
        for problem in error.errors {
            if let mark = problem.mark, mark.line < 1 || mark.column < 1 { fatalError("bad position \(mark)") }
        }
    }
    return 0
}

/// A small nested shape so the decoder's containers are exercised too.
struct FuzzShape: Decodable {
    var name: Positioned<String>?
    var count: Positioned<Int>?
    var flag: Bool?
    var items: YamlList<FuzzShape>?
    var nested: Positioned<FuzzLeaf>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, count, flag, items, nested
    }
}

struct FuzzLeaf: Decodable, Sendable {
    var value: Double?
    var node: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case value, node
    }
}

extension FuzzShape: Sendable {}
