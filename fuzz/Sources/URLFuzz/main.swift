// libFuzzer target for SimpleURL (one byte-level parse), with three oracles:
// - Foundation's `URL` agrees on the plain http(s) URLs both must read alike (scheme, host,
//   port, path, query; the rest is where SimpleURL chose its own rules, docs/client-core.md);
// - Foundation's `URL(string:relativeTo:)` agrees on the path of a plain relative reference
//   resolved against such a URL, `.` and `..` segments included;
// - a query item appended with `appendingQuery` reads back with `queryValue`.
// Input: the URL, optionally followed by a NUL and a reference to resolve against it.
import Foundation

@testable import QueueClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func urlFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let text = String(decoding: Array(parts[0]), as: UTF8.self)
    let reference = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : nil
    let url = SimpleURL(text)

    // A fragment never changes the parse.
    if !text.utf8.contains(UInt8(ascii: "#")), let url {
        guard SimpleURL(text + "#\u{E9}") == url else { fatalError("a fragment changed the parse of \(text)") }
    }
    if let url {
        _ = url.description
        _ = SimpleURL(url.description, sharingStringsWith: url)
        for name in ["q", "c", "e", ""] { _ = url.queryValue(name) }
        if let reference {
            _ = url.resolving(reference)
            roundTrip(name: reference, value: text)
            knownPrefix(of: url, text: text, other: reference)
        }
        if let plain = PlainHTTPURL(text), let foundation = URL(string: text) {
            compare(url, plain: plain, foundation: foundation, text: text)
            if let reference { compareResolution(url, foundation: foundation, reference: reference) }
        }
    } else if let reference {
        roundTrip(name: reference, value: text)
    }
    return 0
}

/// A navigator's shortcut for the next visitor's queue URL and redirect (`SimpleURL.KnownPrefix`):
/// whatever it gives for `text`'s prefix followed by `other` is what the full parse and resolve
/// give.
private func knownPrefix(of url: SimpleURL, text: String, other: String) {
    guard let known = SimpleURL.KnownPrefix(url, text: text),
        let questionMark = text.utf8.firstIndex(of: UInt8(ascii: "?"))
    else { return }
    let next = String(text[...questionMark]) + other
    if let shortcut = known.parse(next), shortcut != SimpleURL(next) {
        fatalError("the known prefix of \(text) read \(next) otherwise than the parse")
    }
    guard let resolved = SimpleURL.resolve(text, against: url),
        let redirect = SimpleURL.KnownPrefix(resolved: resolved, reference: text),
        let shortcut = redirect.resolve(next)
    else { return }
    if shortcut != SimpleURL.resolve(next, against: url) {
        fatalError("the known redirect prefix of \(text) resolved \(next) otherwise than resolving")
    }
}

/// `name=value` appended to a URL without that name reads back as `value`.
private func roundTrip(name: String, value: String) {
    guard !name.isEmpty, let base = SimpleURL("https://room.example/path?other=1"), name != "other" else { return }
    let appended = base.appendingQuery(name, value)
    guard appended.queryValue(name) == value else {
        let read = String(describing: appended.queryValue(name))
        fatalError("appendingQuery(\(name.debugDescription), \(value.debugDescription)) read back as \(read)")
    }
    guard appended.queryValue("other") == "1" else { fatalError("appendingQuery lost an earlier item") }
}

/// `http(s)://host[:port][/path][?query]` with a host of letters, digits, `.` and `-`, a port of
/// at most five digits and only unreserved characters (plus `/`, `=`, `&`) in path and query:
/// URLs both parsers read with no choice to make.
private struct PlainHTTPURL {
    init?(_ text: String) {
        // ASCII only: then `lowercased()` keeps every index where it was.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let lower = text.lowercased()
        guard let schemeEnd = lower.range(of: "://"),
            ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound]))
        else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostPart = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let host = hostPart.first, !host.isEmpty,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else { return nil }
        if hostPart.count == 2 {
            guard (1...5).contains(hostPart[1].count), hostPart[1].allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
        }
        let unreserved: (Character) -> Bool = {
            $0.isASCII && ($0.isLetter || $0.isNumber || "-._~/=&".contains($0))
        }
        let pathAndQuery = rest[authorityEnd...]
        let pieces = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.allSatisfy({ $0.allSatisfy(unreserved) }) else { return nil }
    }
}

private func compare(_ url: SimpleURL, plain: PlainHTTPURL, foundation: URL, text: String) {
    let path = foundation.path(percentEncoded: true)
    let agree =
        url.scheme == foundation.scheme?.lowercased()
        && url.host.lowercased() == foundation.host(percentEncoded: true)?.lowercased()
        && url.port == foundation.port
        && url.path == (path.isEmpty ? "/" : path)
        && url.query == foundation.query(percentEncoded: true)
    guard agree else {
        let ours = [url.scheme, url.host, "\(url.port as Int?)", url.path, "\(url.query as String?)"]
        let theirs = [
            "\(foundation.scheme as String?)", "\(foundation.host(percentEncoded: true) as String?)",
            "\(foundation.port as Int?)", path, "\(foundation.query(percentEncoded: true) as String?)",
        ]
        fatalError("SimpleURL and URL differ on \(text.debugDescription): \(ours) vs \(theirs)")
    }
}

/// A relative path reference of unreserved characters, `/` and `.` (no scheme, no `//host`, no
/// query): RFC 3986 §5.2 leaves no choice in resolving it, and both must remove dot segments.
private func compareResolution(_ url: SimpleURL, foundation: URL, reference: String) {
    let allowed: (UInt8) -> Bool = { byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
    guard !reference.isEmpty, !reference.hasPrefix("//"), reference.utf8.allSatisfy(allowed),
        url.query == nil, !url.path.contains("//"),
        let theirs = URL(string: reference, relativeTo: foundation)?.absoluteURL
    else { return }
    let theirPath = theirs.path(percentEncoded: true)
    let ours = url.resolving(reference)?.path
    guard ours == (theirPath.isEmpty ? "/" : theirPath) else {
        fatalError(
            "resolving \(reference.debugDescription) against \(url): \(String(describing: ours)) vs URL's \(theirPath)")
    }
}
