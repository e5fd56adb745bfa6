/// `SortedJSONValueEncoder`'s layout written by hand, for the report members a run writes once
/// per group (`GroupFiguresJSON`, `RunConfiguration.GroupEntriesJSON`): pretty is two spaces
/// per level and `"key" : value`, an empty container on two lines; the caller writes members in
/// the order of their keys' bytes. Its tests hold every writer built on it to the generic
/// encoder's bytes.
struct DirectJSON {
    private(set) var bytes: [UInt8] = []
    let pretty: Bool
    /// The level of the value being written (its closing bracket's indentation).
    private var depth: Int
    /// Whether the open container has a member or element yet.
    private var hasMember = false

    private static let null = Array("null".utf8)
    private static let prettySeparator = Array(" : ".utf8)
    private static let separator = Array(":".utf8)

    init(pretty: Bool, depth: Int) {
        self.pretty = pretty
        self.depth = depth
    }

    mutating func reserve(_ count: Int) {
        bytes.reserveCapacity(bytes.count + count)
    }

    mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        if pretty { bytes.append(UInt8(ascii: "\n")) }
        depth += 1
        hasMember = false
    }

    /// Before an element or member: the comma after the previous one and the indentation.
    mutating func element() {
        if hasMember {
            bytes.append(UInt8(ascii: ","))
            if pretty { bytes.append(UInt8(ascii: "\n")) }
        }
        hasMember = true
        if pretty { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth)) }
    }

    /// A member's key known when the code is written: plain ASCII, nothing to escape, so its
    /// bytes are copied as they are (a run of 2,000 groups writes some 150,000 of them).
    mutating func key(_ name: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: pretty ? Self.prettySeparator : Self.separator)
    }

    /// A key read from data (an outcome word, a dictionary's key): escaped as JSON needs.
    mutating func key(text name: String) {
        element()
        SortedJSONScalar.appendString(name, to: &bytes)
        bytes.append(contentsOf: pretty ? Self.prettySeparator : Self.separator)
    }

    /// The level of the value being written.
    var level: Int { depth }

    /// Bytes this writer wrote before, at this level, copied as they are: the part of a member
    /// or element either side of what differs (`GroupFiguresJSON`'s groups without visitors).
    /// What it ends with counts as a member.
    mutating func copy(_ piece: [UInt8]) {
        bytes.append(contentsOf: piece)
        hasMember = true
    }

    mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        bytes.append(bracket)
        // The container just closed is a member of its parent, which therefore has one.
        hasMember = true
    }

    mutating func number(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// As the generic encoder writes a `Double` (refusing NaN and the infinities, as it does).
    mutating func number(_ value: Double, at path: @autoclosure () -> [any CodingKey]) throws {
        bytes.append(contentsOf: try SortedJSONScalar.number(value, at: path()))
    }

    mutating func string(_ value: String) {
        SortedJSONScalar.appendString(value, to: &bytes)
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        bytes.append(contentsOf: Self.null)
    }

    /// A `[String]` as the generic encoder writes it.
    mutating func array(_ elements: [String]) {
        open(UInt8(ascii: "["))
        for element in elements {
            self.element()
            string(element)
        }
        close(UInt8(ascii: "]"))
    }

    /// A `[String: String]` as the generic encoder writes a dictionary: members by their keys'
    /// bytes.
    mutating func object(_ members: [String: String]) {
        open(UInt8(ascii: "{"))
        for name in members.keys.sorted(by: SortedJSONScalar.bytesPrecede) {
            key(text: name)
            string(members[name] ?? "")
        }
        close(UInt8(ascii: "}"))
    }
}
