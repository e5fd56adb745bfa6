/// Applying `--set` overrides to the scenario's YAML tree, before anything decodes it.
///
/// Every node an override brings is marked with the override's own source (`YamlMark.source`,
/// n for the n-th override) at its column in `KEY=VALUE`, so a problem in it is reported as
/// `--set KEY=VALUE:1:COLUMN: …` by the validator code that checks the file's own values.
extension ScenarioOverride {
    /// Lists of the scenario format that `--set` may index into but never creates: a path
    /// through one that is absent names a group or an item that does not exist.
    static let listPaths: Set<String> = [
        "visitors", "arrivals.phases", "waitingRoom.faults", "waitingRoom.inviteCodes", "thresholds",
    ]

    /// `root` with every override applied in order (a later one sees the earlier ones), and the
    /// problems found: a value that is not YAML, a path through a missing group or a scalar.
    static func apply(
        _ overrides: [ScenarioOverride], to root: YamlNode, environment: [String: String]
    ) -> (root: YamlNode, problems: [YamlError]) {
        var root = root
        var problems: [YamlError] = []
        for (index, override) in overrides.enumerated() {
            do {
                try override.apply(to: &root, source: index + 1, environment: environment)
            } catch {
                problems += error.errors
            }
        }
        return (root, problems)
    }

    /// The key segments with the column each starts at in `KEY=VALUE` (1-based).
    private var segments: [(key: String, column: Int)] {
        var column = 1
        return path.split(separator: ".", omittingEmptySubsequences: false).map { segment in
            defer { column += segment.count + 1 }
            return (String(segment), column)
        }
    }

    private func apply(to root: inout YamlNode, source: Int, environment: [String: String]) throws(YamlReadError) {
        let valueColumn = path.count + 2
        var node: YamlNode
        do {
            node =
                try YamlReader(environment: environment).read(Array(value.utf8))
                ?? YamlNode(.scalar("", .plain), at: YamlMark(line: 1, column: 1))
        } catch {
            throw YamlReadError(
                errors: error.errors.map { problem in
                    YamlError(
                        problem.message,
                        at: Self.moved(
                            problem.mark ?? YamlMark(line: 1, column: 1), source: source, by: valueColumn - 1)
                    )
                })
        }
        Self.move(&node, source: source, by: valueColumn - 1)
        do {
            try set(node, in: &root, at: segments[...], walked: [], source: source)
        } catch {
            throw YamlReadError(errors: [error])
        }
    }

    /// A position in the value text, as a position in the override's `KEY=VALUE` (only the
    /// first line is preceded by `KEY=`).
    private static func moved(_ mark: YamlMark, source: Int, by columns: Int) -> YamlMark {
        YamlMark(line: mark.line, column: mark.line == 1 ? mark.column + columns : mark.column, source: source)
    }

    private static func move(_ node: inout YamlNode, source: Int, by columns: Int) {
        node.mark = moved(node.mark, source: source, by: columns)
        switch node.content {
        case .scalar: break
        case .sequence(var items):
            for index in items.indices { move(&items[index], source: source, by: columns) }
            node.content = .sequence(items)
        case .mapping(var pairs):
            for index in pairs.indices {
                move(&pairs[index].key, source: source, by: columns)
                move(&pairs[index].value, source: source, by: columns)
            }
            node.content = .mapping(pairs)
        }
    }

    /// Puts `value` at `segments` below `node`; `walked` is the path so far, for messages.
    private func set(
        _ value: YamlNode, in node: inout YamlNode, at segments: ArraySlice<(key: String, column: Int)>,
        walked: [String], source: Int
    ) throws(YamlError) {
        guard let (key, column) = segments.first else { return }
        let mark = YamlMark(line: 1, column: column, source: source)
        let here = walked + [key]
        let rest = segments.dropFirst()
        switch node.content {
        case .mapping(var pairs):
            if let index = pairs.firstIndex(where: { $0.key.scalarText == key }) {
                if rest.isEmpty {
                    pairs[index].value = value
                } else {
                    if pairs[index].value.isNull {
                        try startMapping(at: here, next: rest.first!, mark: pairs[index].value.mark)
                        pairs[index].value = YamlNode(.mapping([]), at: pairs[index].value.mark)
                    }
                    try set(value, in: &pairs[index].value, at: rest, walked: here, source: source)
                }
            } else {
                var added = value
                if !rest.isEmpty {
                    try startMapping(at: here, next: rest.first!, mark: mark)
                    added = YamlNode(.mapping([]), at: mark)
                    try set(value, in: &added, at: rest, walked: here, source: source)
                }
                pairs.append(YamlPair(key: YamlNode(.scalar(key, .plain), at: mark), value: added))
            }
            node.content = .mapping(pairs)
        case .sequence(var items):
            let index = try item(key, in: items, list: walked, mark: mark)
            if rest.isEmpty {
                items[index] = value
            } else {
                try set(value, in: &items[index], at: rest, walked: here, source: source)
            }
            node.content = .sequence(items)
        case .scalar:
            // The value is not echoed: it may be a credential (`waitingRoom.secretKey.x=…`).
            let shown = walked.isEmpty ? "the scenario" : "`\(walked.joined(separator: "."))`"
            let written = node.mark.source == 0 ? "written at \(node.mark)" : "set by an earlier \(origin)"
            throw YamlError(
                "\(shown) (\(written)) is a single value, not a mapping or a list, so it has no `\(key)` to set",
                at: mark)
        }
    }

    /// A key that is absent (or empty) on the way down becomes a new mapping, unless the
    /// format says it is a list: then the next segment names an item that cannot exist.
    private func startMapping(
        at path: [String], next: (key: String, column: Int), mark: YamlMark
    ) throws(YamlError) {
        let written = path.joined(separator: ".")
        let normalised = ScenarioOverride.normalisedListPath(path)
        guard ScenarioOverride.listPaths.contains(normalised) else { return }
        let thing = normalised == "visitors" ? "group" : "item"
        throw YamlError(
            "the scenario has no `\(written)` list, so there is no \(thing) `\(next.key)` in it; \(normalised == "visitors" ? "add a `visitors:` list of groups to the file" : "write the whole list, e.g. --set \(written)='[ … ]'")",
            at: mark)
    }

    /// `visitors.app.patience` → `visitors.patience`, `arrivals.phases.1` → `arrivals.phases`:
    /// the segment after a list names an item, not a key of the format.
    static func normalisedListPath(_ path: [String]) -> String {
        var kept: [String] = []
        var itemNext = false
        for segment in path {
            if itemNext {
                itemNext = false
                continue
            }
            kept.append(segment)
            itemNext = listPaths.contains(kept.joined(separator: "."))
        }
        return kept.joined(separator: ".")
    }

    /// The item of a list named `key` (its `name:`), or at the 0-based index `key`.
    private func item(_ key: String, in items: [YamlNode], list: [String], mark: YamlMark) throws(YamlError) -> Int {
        if let named = items.firstIndex(where: { $0["name"]?.scalarText == key }) { return named }
        if let number = Int(key), items.indices.contains(number) { return number }
        let listName = "`\(list.joined(separator: "."))`"
        let names = items.compactMap { $0["name"]?.scalarText }
        if !names.isEmpty {
            let hint =
                YamlKnownKeys.closest(to: key, among: names).map { "; did you mean `\($0)`?" }
                ?? " (its groups: \(names.map { "`\($0)`" }.joined(separator: ", ")))"
            throw YamlError("\(listName) has no item named `\(key)`\(hint)", at: mark)
        }
        let range = items.isEmpty ? "it is empty" : "its items are numbered 0 to \(items.count - 1)"
        throw YamlError("\(listName) has no item `\(key)`: \(range)", at: mark)
    }
}
