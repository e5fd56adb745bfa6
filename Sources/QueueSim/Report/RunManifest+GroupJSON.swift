import Foundation
import QueueClientCore

// run.json's `groups` and `overall` written straight to bytes: the same bytes as
// `SortedJSONEncoder`'s (so `JSONEncoder`'s), without an encoder per member. A run of 2,000
// groups has some 200,000 of them, and encoding them one by one was a sixth of its time
// (issue 51). `RunManifestGroupJSONTests` holds the two writers to the same bytes.
extension RunManifest {
    /// Encodes `value` as its own `encode(to:)` would, but through `GroupFiguresJSON.append`
    /// when the encoder is `SortedJSONEncoder`'s (every report file); any other encoder gets the
    /// ordinary encoding.
    struct GroupFiguresEncoding<Value: Encodable>: Encodable {
        var value: Value
        var append: (Value, inout GroupFiguresJSON) -> Void

        func encode(to encoder: any Encoder) throws {
            guard let sorted = encoder as? SortedJSONValueEncoder else { return try value.encode(to: encoder) }
            var json = GroupFiguresJSON(pretty: sorted.pretty, depth: sorted.depth)
            append(value, &json)
            sorted.storage = .value(json.bytes)
        }
    }

    /// run.json's largest members (`groups`, `overall`, `configuration`) rendered now, as
    /// `json()` would write them: the recorder renders them while its second thread writes
    /// metrics.prom and report.html, and sets `files` once those are done. Values changed after
    /// this are not written: call it last.
    /// - Parameter rendered: `configuration`'s bytes as `renderConfiguration` made them,
    ///   ahead (the recorder renders them while the run goes on); nil: rendered here.
    mutating func renderLargeMembers(configuration rendered: [UInt8]? = nil) throws {
        // Members of run.json's top object stand at level 1.
        var groupsJSON = GroupFiguresJSON(pretty: true, depth: 1)
        groupsJSON.append(groups)
        var overallJSON = GroupFiguresJSON(pretty: true, depth: 1)
        overallJSON.append(overall)
        renderedMembers = RenderedMembers(
            groups: groupsJSON.bytes, overall: overallJSON.bytes,
            configuration: try rendered ?? configuration.map(Self.renderConfiguration))
    }

    /// run.json's `configuration` member, as `json()` writes it.
    static func renderConfiguration(_ configuration: RunConfiguration) throws -> [UInt8] {
        try SortedJSONEncoder(pretty: true).encode(configuration, depth: 1)
    }

    struct RenderedMembers {
        var groups: [UInt8]
        var overall: [UInt8]
        var configuration: [UInt8]?
        /// Whether `files` is left out, to be put in by `bytes(files:around:)`.
        var filesLater = false
    }

    /// The whole file but its `files`, rendered now, in the two parts either side of it: the
    /// recorder makes them while metrics.prom and report.html are still being written, and puts
    /// their sizes and SHA-256 in between once they are done (`bytes(files:around:)`).
    /// The parts are slices of one array, not copies: with 2,000 groups the file is 3.5 MB.
    mutating func renderedAroundFiles() throws -> (before: ArraySlice<UInt8>, after: ArraySlice<UInt8>) {
        if renderedMembers == nil { try renderLargeMembers() }
        renderedMembers?.filesLater = true
        defer { renderedMembers?.filesLater = false }
        let bytes = try jsonBytes()
        // memchr, not `firstIndex(of:)`, which looks at the bytes one by one.
        let marker = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                memchr(base, 0, buffer.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
            }
        }
        guard let marker else { preconditionFailure("run.json rendered without its files") }
        return (bytes[..<marker], bytes[(marker + 1)...])
    }

    /// run.json's bytes: `parts` around `files`, rendered as `json()` renders them.
    static func bytes(
        files: [String: WrittenFile], around parts: (before: ArraySlice<UInt8>, after: ArraySlice<UInt8>)
    ) throws -> [ArraySlice<UInt8>] {
        [parts.before, try SortedJSONEncoder(pretty: true).encode(files, depth: 1)[...], parts.after]
    }

    /// A member's bytes rendered ahead, pretty-printed at level 1; any other encoder or level
    /// gets `value`'s own encoding.
    struct Rendered<Value: Encodable>: Encodable {
        var value: Value
        var bytes: [UInt8]

        func encode(to encoder: any Encoder) throws {
            guard let sorted = encoder as? SortedJSONValueEncoder, sorted.pretty, sorted.depth == 1 else {
                return try value.encode(to: encoder)
            }
            sorted.storage = .value(bytes)
        }
    }

    static func groupsEncoding(_ groups: [GroupFigures]) -> GroupFiguresEncoding<[GroupFigures]> {
        GroupFiguresEncoding(value: groups) { groups, json in json.append(groups) }
    }

    static func groupEncoding(_ group: GroupFigures) -> GroupFiguresEncoding<GroupFigures> {
        GroupFiguresEncoding(value: group) { group, json in json.append(group) }
    }
}

/// The writer of the two types, on `DirectJSON`'s layout.
struct GroupFiguresJSON {
    private var json: DirectJSON
    var bytes: [UInt8] { json.bytes }
    /// A group without visitors as written, either side of its name: every other such group
    /// at the same level is the same bytes but its name (a third of 2,000 small groups, issue 51).
    private var unvisited: (figures: RunManifest.GroupFigures, level: Int, beforeName: [UInt8], afterName: [UInt8])?

    /// VisitorOutcome's words sorted by their bytes: a group's `outcomes` lists every one.
    private static let sortedOutcomes = VisitorOutcome.allCases.map(\.rawValue).sorted {
        SortedJSONScalar.bytesPrecede($0, $1)
    }

    init(pretty: Bool, depth: Int) {
        json = DirectJSON(pretty: pretty, depth: depth)
    }

    mutating func append(_ groups: [RunManifest.GroupFigures]) {
        // About 1,800 bytes a group, pretty-printed.
        json.reserve(2_048 * groups.count)
        json.open(UInt8(ascii: "["))
        for group in groups {
            json.element()
            append(group)
        }
        json.close(UInt8(ascii: "]"))
    }

    /// Members in the order of their keys' bytes: connect_ms, enqueue_ms, name, outcomes,
    /// tls_ms, total_ms, visitors, wait_ms.
    mutating func append(_ group: RunManifest.GroupFigures) {
        if group.visitors == 0, let unvisited, unvisited.level == json.level,
            unvisited.figures == Self.renamed(group, unvisited.figures.name)
        {
            json.copy(unvisited.beforeName)
            json.string(group.name)
            json.copy(unvisited.afterName)
            return
        }
        let start = json.bytes.count
        json.open(UInt8(ascii: "{"))
        json.key("connect_ms")
        append(group.connectMs)
        json.key("enqueue_ms")
        append(group.enqueueMs)
        json.key("name")
        let nameStart = json.bytes.count
        json.string(group.name)
        let nameEnd = json.bytes.count
        defer {
            if group.visitors == 0, unvisited == nil {
                unvisited = (
                    group, json.level, Array(json.bytes[start..<nameStart]), Array(json.bytes[nameEnd...])
                )
            }
        }
        json.key("outcomes")
        append(group.outcomes)
        json.key("tls_ms")
        append(group.tlsMs)
        json.key("total_ms")
        append(group.totalMs)
        json.key("visitors")
        json.number(group.visitors)
        json.key("wait_ms")
        append(group.waitMs)
        json.close(UInt8(ascii: "}"))
    }

    private static func renamed(_ group: RunManifest.GroupFigures, _ name: String) -> RunManifest.GroupFigures {
        var group = group
        group.name = name
        return group
    }

    /// Members in the order of their keys' bytes: cap_ms, capped, capped_by, count, max, p50,
    /// p90, p95, p99 (the first three only when there is a cap).
    private mutating func append(_ distribution: RunManifest.Distribution) {
        json.open(UInt8(ascii: "{"))
        if let capMs = distribution.capMs {
            json.key("cap_ms")
            json.number(capMs)
        }
        if let capped = distribution.capped {
            json.key("capped")
            json.open(UInt8(ascii: "["))
            for name in capped {
                json.element()
                json.string(name)
            }
            json.close(UInt8(ascii: "]"))
        }
        if let cappedBy = distribution.cappedBy {
            json.key("capped_by")
            json.string(cappedBy)
        }
        json.key("count")
        json.number(distribution.count)
        optional("max", distribution.max)
        optional("p50", distribution.p50)
        optional("p90", distribution.p90)
        optional("p95", distribution.p95)
        optional("p99", distribution.p99)
        json.close(UInt8(ascii: "}"))
    }

    /// A figure that is `null` when nobody was measured.
    private mutating func optional(_ name: StaticString, _ value: UInt64?) {
        json.key(name)
        if let value { json.number(value) } else { json.null() }
    }

    private mutating func append(_ outcomes: [String: Int]) {
        json.open(UInt8(ascii: "{"))
        // A file read back may hold other words: those are sorted here.
        let names =
            outcomes.count == Self.sortedOutcomes.count && Self.sortedOutcomes.allSatisfy { outcomes[$0] != nil }
            ? Self.sortedOutcomes : outcomes.keys.sorted { SortedJSONScalar.bytesPrecede($0, $1) }
        for name in names {
            json.key(text: name)
            json.number(outcomes[name] ?? 0)
        }
        json.close(UInt8(ascii: "}"))
    }
}
