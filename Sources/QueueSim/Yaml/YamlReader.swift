import CYaml

/// Reads one YAML document into a `YamlNode` tree with libyaml's event parser.
///
/// The tree builder keeps its own stack (no recursion), so nesting is bounded by `maxDepth`
/// rather than by the thread's stack; aliases are resolved by copy and every node an alias
/// re-uses counts against `maxAliasExpansion`, so a "billion laughs" file fails after a few
/// thousand events instead of after gigabytes.
package struct YamlReader: Sendable {
    package var maxDepth: Int
    package var maxAliasExpansion: Int
    package var environment: [String: String]

    package init(environment: [String: String] = [:], maxDepth: Int = 64, maxAliasExpansion: Int = 100_000) {
        self.environment = environment
        self.maxDepth = maxDepth
        self.maxAliasExpansion = maxAliasExpansion
    }

    /// The document's root node, or nil for a stream without a document (an empty file or
    /// one with only comments). Throws every problem found; syntax errors stop the reading.
    package func read(_ bytes: [UInt8]) throws(YamlReadError) -> YamlNode? {
        do {
            try YamlInputCheck.check(bytes)
        } catch {
            throw YamlReadError(errors: [error])
        }
        var builder = YamlTreeBuilder(reader: self, input: bytes)
        let root: YamlNode?
        do {
            root = try builder.run()
        } catch let fatal as YamlError {
            throw YamlReadError(errors: builder.problems + [fatal])
        } catch {
            throw YamlReadError(errors: builder.problems + [YamlError(wording: error, at: nil)])
        }
        if !builder.problems.isEmpty { throw YamlReadError(errors: builder.problems) }
        return root
    }
}

/// Every problem found in a YAML text, in the order found.
package struct YamlReadError: Error, Sendable, Equatable {
    package var errors: [YamlError]
}

/// The event loop: libyaml events in, a node tree out.
private struct YamlTreeBuilder {
    private struct Frame {
        var isMapping: Bool
        var mark: YamlMark
        var anchor: String?
        var tag: YamlTag?
        var items: [YamlNode] = []
    }

    private struct Anchored {
        var node: YamlNode
        /// Nodes in the subtree as it would be expanded (aliases inside counted in full).
        var expandedSize: Int
    }

    let reader: YamlReader
    let input: [UInt8]
    var problems: [YamlError] = []
    private var stack: [Frame] = []
    private var sizes: [[Int]] = []
    private var anchors: [String: Anchored] = [:]
    private var aliasExpansion = 0
    private var documents = 0
    private var root: YamlNode?

    init(reader: YamlReader, input: [UInt8]) {
        self.reader = reader
        self.input = input
    }

    mutating func run() throws -> YamlNode? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
        defer {
            parser.deallocate()
            event.deallocate()
        }
        guard yaml_parser_initialize(parser) != 0 else {
            throw YamlError("libyaml could not start (out of memory)", at: nil)
        }
        defer { yaml_parser_delete(parser) }
        let bytes = input  // a copy, so the closure below may mutate self
        return try bytes.withUnsafeBufferPointer { buffer throws -> YamlNode? in
            // libyaml wants a non-null pointer even for an empty input.
            var empty: UInt8 = 0
            let base = buffer.baseAddress ?? withUnsafeMutablePointer(to: &empty) { UnsafePointer($0) }
            yaml_parser_set_input_string(parser, base, buffer.count)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            while true {
                guard yaml_parser_parse(parser, event) != 0 else { throw libyamlError(parser.pointee) }
                defer { yaml_event_delete(event) }
                if event.pointee.type == YAML_STREAM_END_EVENT { return root }
                try handle(event.pointee)
            }
        }
    }

    private mutating func handle(_ event: yaml_event_t) throws {
        let mark = YamlMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YamlError(
                    "found a second document; a scenario file holds exactly one YAML document (remove the `---` line or split the file)",
                    at: mark)
            }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            var text = string(scalar.value, length: scalar.length)
            var style = scalarStyle(scalar.style)
            let isKey = stack.last.map { $0.isMapping && $0.items.count % 2 == 0 } ?? false
            if !isKey {
                do {
                    let expanded = try YamlEnvironment.expand(text, environment: reader.environment)
                    // A reference that expands to nothing (or to `null`/`~`) is an empty or
                    // literal text, never an absent value: `secretKey: ${SECRET}` with SECRET
                    // empty must be refused like `secretKey: ""`, not fall back to the
                    // public default.
                    if expanded != text, style == .plain,
                        YamlNode(.scalar(expanded, .plain), at: mark).isNull
                    {
                        style = .doubleQuoted
                    }
                    text = expanded
                } catch {
                    problems.append(YamlError(error.message, at: mark))
                }
            }
            // After expansion, so `seed: !!int ${SEED}` is checked as the number it becomes.
            var tag: YamlTag?
            do {
                tag = try YamlTag.read(scalar.tag.map { string($0) }, isScalar: true, isKey: isKey, at: mark)
                if let tag { style = try tag.scalarStyle(for: text, written: style, at: mark) }
            } catch {
                problems.append(error)
                tag = nil
            }
            try add(
                YamlNode(.scalar(text, style), at: mark, tag: tag), size: 1, anchor: scalar.anchor.map { string($0) })
        case YAML_ALIAS_EVENT:
            let name = string(event.data.alias.anchor)
            guard let anchored = anchors[name] else {
                throw YamlError("the alias *\(name) refers to no anchor; define &\(name) before using it", at: mark)
            }
            aliasExpansion += anchored.expandedSize
            if aliasExpansion > reader.maxAliasExpansion {
                throw YamlError(
                    "aliases expand to more than \(reader.maxAliasExpansion) nodes; refusing a file that multiplies itself (\"billion laughs\")",
                    at: mark)
            }
            try add(anchored.node, size: anchored.expandedSize, anchor: nil)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            if stack.count >= reader.maxDepth {
                throw YamlError(
                    "lists and mappings nest deeper than \(reader.maxDepth) levels; a scenario needs only a few",
                    at: mark)
            }
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            let written = isMapping ? event.data.mapping_start.tag : event.data.sequence_start.tag
            var tag: YamlTag?
            do {
                tag = try YamlTag.read(written.map { string($0) }, isScalar: false, isKey: false, at: mark)
                try tag?.checkCollection(isMapping: isMapping, at: mark)
            } catch {
                problems.append(error)
                tag = nil
            }
            stack.append(Frame(isMapping: isMapping, mark: mark, anchor: anchor.map { string($0) }, tag: tag))
            sizes.append([])
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let frame = stack.removeLast()
            let size = sizes.removeLast().reduce(1, +)
            let node: YamlNode
            if frame.isMapping {
                node = YamlNode(.mapping(try mappingPairs(frame.items)), at: frame.mark, tag: frame.tag)
            } else {
                node = YamlNode(.sequence(frame.items), at: frame.mark, tag: frame.tag)
            }
            try add(node, size: size, anchor: frame.anchor)
        default:
            break  // stream and document boundaries carry nothing the tree needs
        }
    }

    private mutating func add(_ node: YamlNode, size: Int, anchor: String?) throws {
        if let anchor { anchors[anchor] = Anchored(node: node, expandedSize: size) }
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].items.append(node)
            sizes[sizes.count - 1].append(size)
        }
    }

    /// Pairs up keys and values, refusing duplicate and non-scalar keys and applying `<<`
    /// merge keys (explicit keys win over merged ones).
    private mutating func mappingPairs(_ items: [YamlNode]) throws -> [YamlPair] {
        var pairs: [YamlPair] = []
        var seen: [String: YamlMark] = [:]
        var merges: [YamlNode] = []
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            let key = items[index]
            let value = items[index + 1]
            guard case .scalar(let text, let style) = key.content else {
                throw YamlError("a mapping key must be a plain name, found \(key.kindDescription)", at: key.mark)
            }
            if style == .plain, text == "<<" {
                merges.append(value)
                continue
            }
            if let first = seen[text] {
                problems.append(
                    YamlError(
                        "duplicate key `\(text)` (first written at \(first)); each key may appear once", at: key.mark))
                continue
            }
            seen[text] = key.mark
            pairs.append(YamlPair(key: key, value: value))
        }
        for merge in merges {
            let sources: [YamlNode]
            if case .sequence(let nodes) = merge.content { sources = nodes } else { sources = [merge] }
            for source in sources {
                guard case .mapping(let merged) = source.content else {
                    throw YamlError(
                        "`<<` merges a mapping (or a list of mappings) into this one, found \(source.kindDescription)",
                        at: source.mark)
                }
                for pair in merged {
                    guard let name = pair.key.scalarText, seen[name] == nil else { continue }
                    seen[name] = pair.key.mark
                    pairs.append(pair)
                }
            }
        }
        return pairs
    }

    private func libyamlError(_ parser: yaml_parser_t) -> YamlError {
        let problem = parser.problem.map { String(cString: $0) } ?? "the YAML could not be read"
        switch parser.error {
        case YAML_READER_ERROR:
            return YamlError(problem, at: markForByteOffset(Int(parser.problem_offset)))
        case YAML_MEMORY_ERROR:
            return YamlError("libyaml ran out of memory", at: nil)
        default:
            let mark = YamlMark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
            var message = problem
            if let context = parser.context {
                let contextMark = YamlMark(
                    line: Int(parser.context_mark.line) + 1, column: Int(parser.context_mark.column) + 1)
                message += " (\(String(cString: context)) that starts at \(contextMark))"
            }
            if character(at: mark) == UInt8(ascii: "\t") || problem.contains("tab") {
                message += "; this is a tab character: YAML indents with spaces only"
            } else if problem == "mapping values are not allowed in this context" {
                message += "; check this line's indentation, and quote values that contain `: `"
            }
            return YamlError(message, at: mark)
        }
    }

    /// The first byte of the character at a 1-based line and column.
    private func character(at mark: YamlMark) -> UInt8? {
        var line = 1
        var index = 0
        while line < mark.line, index < input.count {
            if input[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
        var column = 1
        while column < mark.column, index < input.count {
            index += 1
            while index < input.count, input[index] & 0xC0 == 0x80 { index += 1 }
            column += 1
        }
        return index < input.count ? input[index] : nil
    }

    private func markForByteOffset(_ offset: Int) -> YamlMark {
        var line = 1
        var column = 1
        for byte in input.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YamlMark(line: line, column: column)
    }

    private func scalarStyle(_ style: yaml_scalar_style_t) -> YamlScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>, length: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>) -> String {
        String(cString: pointer)
    }
}
