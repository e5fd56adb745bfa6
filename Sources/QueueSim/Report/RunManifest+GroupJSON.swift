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
    mutating func renderLargeMembers() throws {
        // Members of run.json's top object stand at level 1.
        var groupsJSON = GroupFiguresJSON(pretty: true, depth: 1)
        groupsJSON.append(groups)
        var overallJSON = GroupFiguresJSON(pretty: true, depth: 1)
        overallJSON.append(overall)
        renderedMembers = RenderedMembers(
            groups: groupsJSON.bytes, overall: overallJSON.bytes,
            configuration: try configuration.map { try SortedJSONEncoder(pretty: true).encode($0, depth: 1) })
    }

    struct RenderedMembers {
        var groups: [UInt8]
        var overall: [UInt8]
        var configuration: [UInt8]?
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

/// The writer: `SortedJSONValueEncoder`'s layout (members sorted by their keys' bytes; pretty:
/// two spaces per level, `"key" : value`, an empty container on two lines) for the two types.
struct GroupFiguresJSON {
    private(set) var bytes: [UInt8] = []
    let pretty: Bool
    /// The level of the value being written (its closing bracket's indentation).
    private var depth: Int
    /// Whether the open container has a member or element yet.
    private var hasMember = false

    /// VisitorOutcome's words sorted by their bytes: a group's `outcomes` lists every one.
    private static let sortedOutcomes = VisitorOutcome.allCases.map(\.rawValue).sorted {
        SortedJSONScalar.bytesPrecede($0, $1)
    }

    private static let null = Array("null".utf8)
    private static let prettySeparator = Array(" : ".utf8)
    private static let separator = Array(":".utf8)

    init(pretty: Bool, depth: Int) {
        self.pretty = pretty
        self.depth = depth
    }

    mutating func append(_ groups: [RunManifest.GroupFigures]) {
        // About 1,800 bytes a group, pretty-printed.
        bytes.reserveCapacity(bytes.count + 2_048 * groups.count)
        open(UInt8(ascii: "["))
        for group in groups {
            element()
            append(group)
        }
        close(UInt8(ascii: "]"))
    }

    /// Members in the order of their keys' bytes: connect_ms, enqueue_ms, name, outcomes,
    /// tls_ms, total_ms, visitors, wait_ms.
    mutating func append(_ group: RunManifest.GroupFigures) {
        open(UInt8(ascii: "{"))
        key("connect_ms")
        append(group.connectMs)
        key("enqueue_ms")
        append(group.enqueueMs)
        key("name")
        SortedJSONScalar.appendString(group.name, to: &bytes)
        key("outcomes")
        append(group.outcomes)
        key("tls_ms")
        append(group.tlsMs)
        key("total_ms")
        append(group.totalMs)
        key("visitors")
        number(group.visitors)
        key("wait_ms")
        append(group.waitMs)
        close(UInt8(ascii: "}"))
    }

    /// Members in the order of their keys' bytes: cap_ms, capped, capped_by, count, max, p50,
    /// p90, p95, p99 (the first three only when there is a cap).
    private mutating func append(_ distribution: RunManifest.Distribution) {
        open(UInt8(ascii: "{"))
        if let capMs = distribution.capMs {
            key("cap_ms")
            number(capMs)
        }
        if let capped = distribution.capped {
            key("capped")
            open(UInt8(ascii: "["))
            for name in capped {
                element()
                SortedJSONScalar.appendString(name, to: &bytes)
            }
            close(UInt8(ascii: "]"))
        }
        if let cappedBy = distribution.cappedBy {
            key("capped_by")
            SortedJSONScalar.appendString(cappedBy, to: &bytes)
        }
        key("count")
        number(distribution.count)
        optional("max", distribution.max)
        optional("p50", distribution.p50)
        optional("p90", distribution.p90)
        optional("p95", distribution.p95)
        optional("p99", distribution.p99)
        close(UInt8(ascii: "}"))
    }

    /// A figure that is `null` when nobody was measured.
    private mutating func optional(_ name: String, _ value: UInt64?) {
        key(name)
        if let value { number(value) } else { bytes.append(contentsOf: Self.null) }
    }

    private mutating func append(_ outcomes: [String: Int]) {
        open(UInt8(ascii: "{"))
        // A file read back may hold other words: those are sorted here.
        let names =
            outcomes.count == Self.sortedOutcomes.count && Self.sortedOutcomes.allSatisfy { outcomes[$0] != nil }
            ? Self.sortedOutcomes : outcomes.keys.sorted { SortedJSONScalar.bytesPrecede($0, $1) }
        for name in names {
            key(name)
            number(outcomes[name] ?? 0)
        }
        close(UInt8(ascii: "}"))
    }

    // MARK: - Layout

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        if pretty { bytes.append(UInt8(ascii: "\n")) }
        depth += 1
        hasMember = false
    }

    /// Before an element or member: the comma after the previous one and the indentation.
    private mutating func element() {
        if hasMember {
            bytes.append(UInt8(ascii: ","))
            if pretty { bytes.append(UInt8(ascii: "\n")) }
        }
        hasMember = true
        if pretty { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth)) }
    }

    private mutating func key(_ name: String) {
        element()
        SortedJSONScalar.appendString(name, to: &bytes)
        bytes.append(contentsOf: pretty ? Self.prettySeparator : Self.separator)
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        bytes.append(bracket)
        // The container just closed is a member of its parent, which therefore has one.
        hasMember = true
    }

    private mutating func number(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
