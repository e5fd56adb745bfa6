/// Unknown-key detection and "did you mean" suggestions for `CaseIterable` coding keys.
enum YamlKnownKeys {
    static func names<Key: CodingKey>(of type: Key.Type) -> [String]? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return iterable.caseNames()
    }

    static func unknownKeyError(
        _ name: String, at mark: YamlMark, known: [String], in place: String, belongsIn home: String? = nil
    ) -> YamlError {
        var message = "unknown key `\(name)` in \(place)"
        if let suggestion = closest(to: name, among: known) {
            message += "; did you mean `\(suggestion)`?"
        } else if let home {
            message += "; `\(name)` belongs in \(home)"
        } else {
            message += "; expected one of: \(known.joined(separator: ", "))"
        }
        return YamlError(message, at: mark)
    }

    /// The known name nearest to `name` (case-insensitive edit distance), if it is close enough
    /// to be a plausible typo.
    static func closest(to name: String, among known: [String]) -> String? {
        let lowered = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(lowered, Array(candidate.lowercased()))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(1, min(3, name.count / 3))
        return best.distance <= allowed ? best.name : nil
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension CaseIterable {
    fileprivate static func caseNames() -> [String] {
        allCases.compactMap { ($0 as? any CodingKey)?.stringValue }
    }
}
