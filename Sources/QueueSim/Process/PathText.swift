/// File path pieces as plain text. Foundation's `NSString` path methods crash (an illegal
/// instruction in `_startOfLastPathComponent`, swift-corelibs-foundation in Swift 6.3) on a
/// one-character path such as `--out d` or a scenario file named `s`, so queuesim does not use
/// them.
package enum PathText {
    /// `reports/launch` → `launch`; `launch/` → `launch`; `/` → `/`.
    package static func lastComponent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard trimmed != "/" else { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `reports/launch` → `reports`; `launch` → ``; `/launch` → `/`.
    package static func parent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return "" }
        let parent = withoutTrailingSlashes(String(trimmed[..<slash]))
        return parent.isEmpty ? "/" : parent
    }

    /// `launch.yaml` → `launch`; `.hidden` → `.hidden`; `a.b.yaml` → `a.b`.
    package static func withoutExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `dir` + `/` + `name`, without doubling a slash.
    package static func appending(_ name: String, to directory: String) -> String {
        guard !directory.isEmpty else { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
