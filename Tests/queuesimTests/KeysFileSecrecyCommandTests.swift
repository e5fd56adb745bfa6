import Foundation
import Testing

/// A keys or tokens file is a list of secrets (issue 51): one without the expected header row
/// is refused with exit 2 and the file's line, and no message quotes what the file holds.
@Suite("keys files: errors never quote a key")
struct KeysFileSecrecyCommandTests {
    static let firstKey = "k-7f3a9c2e-first-secret-key"
    static let secondKey = "k-0b44d1aa-second-secret-key"

    /// A folder with a headerless `keys.csv` (two keys, one per line) and a scenario that reads
    /// it from `place`: a visitor group's enqueue key, or the room's known keys.
    static func folder(readingKeysFrom place: String) throws -> (folder: String, scenario: String) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("queuesim-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("\(firstKey)\n\(secondKey)\n".utf8).write(to: URL(fileURLWithPath: folder + "/keys.csv"))
        let reader =
            place == "group"
            ? """
            visitors:
              - name: invited
                enqueueKey: { csv: keys.csv, column: key }
            """
            : """
            waitingRoom:
              inviteOnly: true
              enqueueKeys: { csv: keys.csv, column: key }
            """
        let scenario = folder + "/scenario.yaml"
        try Data(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            \(reader)
            """.utf8
        ).write(to: URL(fileURLWithPath: scenario))
        return (folder, scenario)
    }

    @Test(arguments: [
        ("group", ["validate"]), ("group", ["run", "--clock", "virtual"]), ("room", ["validate"]),
        ("room", ["serve", "--port", "0"]),
    ])
    func aHeaderlessKeysFileIsRefusedWithoutItsFirstKey(place: String, command: [String]) throws {
        let (folder, scenario) = try Self.folder(readingKeysFrom: place)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/reports"
        var arguments = [command[0], scenario] + command.dropFirst()
        if command[0] == "run" { arguments += ["--out", out] }
        let result = try QueueSimProcess.run(arguments, limit: .seconds(10))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(folder)/keys.csv:1: no header row with a column named `key` (the first line has 1 column; values are not shown, they may be secrets)"
            ), "\(result.stderr)")
        for output in [result.stderr, result.stdout] {
            #expect(!output.contains(Self.firstKey), "a key reached the output: \(output)")
            #expect(!output.contains(Self.secondKey), "a key reached the output: \(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
