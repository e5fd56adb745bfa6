/// A list whose items decode one by one: an item that fails is recorded as a problem and left
/// out, and the others are still decoded (and checked).
package struct YamlList<Element: Decodable & Sendable>: Decodable, Sendable {
    package var elements: [Element]
    package var mark: YamlMark

    package init(from decoder: any Decoder) throws {
        guard let yaml = decoder as? YamlNodeDecoder else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "YamlList decodes only from YAML"))
        }
        mark = yaml.node.mark
        guard case .sequence(let items) = yaml.node.content else {
            throw YamlError(
                "expected a list (lines starting with `- `, or [a, b]) for \(yaml.pathDescription), found \(yaml.node.kindDescription)",
                at: yaml.node.mark)
        }
        elements = []
        // Grown once: an element may be large (a group holds some twenty optional values), and
        // a list of 2,000 groups grown by doubling copied each of them over again (issue 51).
        elements.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do {
                elements.append(try Element(from: yaml.child(item, key: YamlIndexKey(intValue: index))))
            } catch {
                yaml.state.record(error, at: item.mark)
            }
        }
    }
}
