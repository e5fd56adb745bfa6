import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// RunFolderCheck on bytes alone: what `queuesim compare` refuses in a folder, and that no
/// bytes crash or hang it (issue 51).
@Suite("compare: a report folder checked against its run.json")
struct RunFolderCheckTests {
    static func manifest(visitors: Int = 2, passed: Int = 2, exit: Int = 0, extra: String = "") -> Data {
        Data(
            #"""
            {"scenario": "s", "scenario_sha256": "ab", "seed": 1, "clock": "virtual", "exit_code": \#(exit),
             "visitors": \#(visitors), "outcomes": {"passed": \#(passed), "error": 0}\#(extra)}
            """#.utf8)
    }

    static func row(_ visitor: Int, outcome: String = "passed", arrival: String = "0", enqueue: String = "0") -> String
    {
        "\(visitor),app,run,\(arrival),0,\(outcome),queue,302,,1,1,0,\(enqueue),0,10,,present,2,,\n"
    }

    static let rows = VisitorRowFormat.header + row(1) + row(2)

    /// The refusal's words, or nil when the folder is accepted.
    static func problem(_ runJSON: Data, _ csv: String) -> String? {
        problem(runJSON, Data(csv.utf8))
    }

    static func problem(_ runJSON: Data, _ csv: Data) -> String? {
        do {
            try RunFolderCheck.check(runJSON: runJSON, visitorsCSV: csv)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aFolderThatAddsUpIsAccepted() throws {
        #expect(Self.problem(Self.manifest(), Self.rows) == nil)
        let run = try ComparedRun(folder: "run", runJSON: Self.manifest(), visitorsCSV: Data(Self.rows.utf8))
        #expect(run.measurements.visitorCount == 2)
    }

    @Test func runsThatAreNotWholeAreRefusedBeforeTheirRows() {
        let cases: [(extra: String, exit: Int, words: String)] = [
            (
                #", "incomplete": "the run was killed", "interrupted": true"#, 130,
                "run is not a whole run: it is incomplete (exit 130): the run was killed"
            ),
            (
                #", "guardrail_stop": {"threshold": "error < 5%", "window": {"from_s": 0, "to_s": 30, "measured": 0.1}, "at_ms": 30000}"#,
                4,
                "run is not a whole run: a guardrail stopped it (exit 4)"
            ),
            (#", "interrupted": true"#, 143, "run is not a whole run: it was interrupted (exit 143)"),
            (#", "shards": {"count": 3, "missing": [2]}"#, 5, "run is not a whole run: it is a partial merge (exit 5)"),
            ("", 3, "run is not a whole run: run.json says exit 3, not a finished run's 0 or 1"),
        ]
        for (extra, exit, words) in cases {
            let problem = Self.problem(Self.manifest(exit: exit, extra: extra), "")
            #expect(problem?.hasPrefix(words) == true, "\(problem ?? "accepted")")
        }
        // A threshold that failed is a whole run.
        #expect(Self.problem(Self.manifest(exit: 1), Self.rows) == nil)
    }

    @Test func whatQueuesimNeverWritesIsRefusedWithItsLine() {
        let header = VisitorRowFormat.header
        let cases: [(csv: String, words: String)] = [
            (
                header.replacingOccurrences(of: ",outcome,", with: ",result,") + Self.row(1) + Self.row(2),
                "run/visitors.csv:1: not the visitors.csv header: column 6 is `result`, queuesim writes `outcome`"
            ),
            (
                header + Self.row(1).replacingOccurrences(of: "\n", with: "\r\n") + Self.row(2),
                "run/visitors.csv:2: a carriage return (Windows line ends?)"
            ),
            (header + Self.row(1) + "\n" + Self.row(2), "run/visitors.csv:3: an empty line"),
            (
                header + Self.row(1, arrival: "9223372036854775807") + Self.row(2),
                "run/visitors.csv:2: arrival_ms is `9223372036854775807`, not a number of milliseconds"
            ),
            (
                header + Self.row(1) + Self.row(2, enqueue: "-5"),
                "run/visitors.csv:3: enqueue_ms is `-5`, not a number of milliseconds"
            ),
            (header + Self.row(1, outcome: "won") + Self.row(2), "run/visitors.csv:2: `won` is not an outcome"),
            (header + Self.row(1) + Self.row(1), "run/visitors.csv:3: visitor 1 has a row already"),
            (
                header + Self.row(1) + "\"" + String(repeating: "x", count: 70_000),
                "run/visitors.csv:3: a row longer than 64 KiB"
            ),
            (header + Self.row(1) + Self.row(2) + Self.row(3), "run/visitors.csv has 3 rows, run.json says 2 visitors"),
            (
                header + Self.row(1) + Self.row(2, outcome: "error"),
                "run/visitors.csv has 1 passed visitors, run.json says 2"
            ),
        ]
        for (csv, words) in cases {
            let problem = Self.problem(Self.manifest(), csv)
            #expect(problem?.hasPrefix(words) == true, "\(problem ?? "accepted")")
        }
    }

    @Test func theFileMustBeTheOneRunJSONRecords() {
        let bytes = Self.rows.utf8.count
        let sha = "0123456789ab" + String(repeating: "0", count: 52)
        let recorded = Self.manifest(extra: #", "files": {"visitors.csv": {"bytes": \#(bytes), "sha256": "\#(sha)"}}"#)
        let problem = Self.problem(recorded, Self.rows)
        #expect(
            problem?.hasPrefix("run/visitors.csv is not the file run.json records: it has \(bytes) bytes (SHA-256 ")
                == true, "\(problem ?? "accepted")")
        #expect(problem?.hasSuffix("run.json records \(bytes) bytes (SHA-256 0123456789ab…)") == true)
    }

    @Test func aRunJSONThatIsNotQueuesimsIsSaidSo() {
        #expect(
            Self.problem(Data("nope".utf8), Data())
                == "cannot read run/run.json: it is not a run.json queuesim wrote (not JSON)")
        let withoutVisitors =
            #"{"scenario": "s", "scenario_sha256": "ab", "seed": 1, "clock": "virtual", "exit_code": 0, "outcomes": {}}"#
        let missing = Self.problem(Data(withoutVisitors.utf8), Data())
        #expect(missing?.hasSuffix("(it has no `visitors`)") == true, "\(missing ?? "accepted")")
    }

    /// Bounded: a few thousand mutations of a valid folder, each refused or accepted, never a crash.
    @Test func anyBytesAreRefusedOrAcceptedNeverACrash() {
        var generator = SplitMix(seed: 51)
        let valid = Array((VisitorRowFormat.header + (1...20).map { Self.row($0) }.joined()).utf8)
        let alphabet = Array("0123456789,-\"\n\r\0 passederror".utf8)
        for _ in 0..<3_000 {
            var bytes = valid
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                }
            }
            _ = Self.problem(Self.manifest(visitors: 20, passed: 20), Data(bytes))
        }
    }
}

/// A tiny deterministic generator for the mutation loop.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
