import Foundation
import Testing

/// `queuesim compare` refuses (exit 2) a folder that does not add up to its own run.json, a run
/// that is not whole, and one run given twice (issue 51): each of these once compared green.
@Suite("queuesim compare refuses broken or partial inputs")
struct CompareRefusalCommandTests {
    /// A run's folder copied (through its `DIR` link) into a fresh folder, to tamper with.
    static func copy(_ folder: String) throws -> String {
        let copy = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for file in ["run.json", "visitors.csv", "summary.csv"] {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: copy + "/" + file)
        }
        return copy
    }

    /// What is done to a copy of a real run's `visitors.csv` (400 rows after its header), and
    /// what compare must say of it.
    enum Tampering: String, CaseIterable, CustomTestStringConvertible {
        case fortyPercentOfTheRows, cutMidRow, everyRowTwice, anExtraColumn, aNulByte, emptyFile
        case anOutcomeChanged, aWaitChanged

        var testDescription: String { rawValue }

        func apply(to bytes: [UInt8]) -> [UInt8] {
            let lines = bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) + [UInt8(ascii: "\n")] }
            let (header, rows) = (lines[0], Array(lines.dropFirst()))
            switch self {
            case .fortyPercentOfTheRows: return header + rows.prefix(rows.count * 4 / 10).joined()
            case .cutMidRow: return header + rows.prefix(200).joined() + rows[200].prefix(rows[200].count / 2)
            case .everyRowTwice: return header + rows.joined() + rows.joined()
            case .anExtraColumn:
                var edited = rows
                edited[99].insert(contentsOf: Array(",extra".utf8), at: edited[99].count - 1)
                return header + edited.joined()
            case .aNulByte:
                var edited = rows
                edited[49][3] = 0
                return header + edited.joined()
            case .emptyFile: return []
            case .anOutcomeChanged:
                let text = String(decoding: header + rows.joined(), as: UTF8.self)
                let range = text.range(of: ",passed,")!
                return Array(text.replacingCharacters(in: range, with: ",error,").utf8)
            case .aWaitChanged:
                // wait_ms (column 14) of the last row, one millisecond longer: the row still
                // reads, the counts still add up, only the bytes run.json records differ.
                var cells = String(decoding: rows[rows.count - 1].dropLast(), as: UTF8.self)
                    .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                cells[13] = String(Int(cells[13])! + 1)
                return header + rows.dropLast().joined() + Array((cells.joined(separator: ",") + "\n").utf8)
            }
        }

        /// The words compare must print, after the tampered folder's path.
        var words: String {
            switch self {
            case .fortyPercentOfTheRows: "/visitors.csv has 160 rows, run.json says 400 visitors"
            case .cutMidRow: "/visitors.csv:202: the row is cut short: the file ends in the middle of it"
            case .everyRowTwice: "/visitors.csv:402: visitor 1 has a row already: every visitor has one row"
            case .anExtraColumn: "/visitors.csv:101: 21 columns, the header has 20"
            case .aNulByte: "/visitors.csv:51: a NUL byte: not a file queuesim wrote"
            case .emptyFile: "/visitors.csv is empty: it has no header and no rows"
            case .anOutcomeChanged: "/visitors.csv has 399 passed visitors, run.json says 400"
            case .aWaitChanged: "/visitors.csv is not the file run.json records: it has "
            }
        }
    }

    @Test(arguments: Tampering.allCases)
    func aTamperedVisitorsFileIsRefused(_ tampering: Tampering) async throws {
        let scenario = try TemporaryScenario(CompareCommandTests.scenario)
        let base = try await CompareCommandTests.run(scenario)
        let victim = try Self.copy(try await CompareCommandTests.run(scenario))
        let file = victim + "/visitors.csv"
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        try Data(tampering.apply(to: original)).write(to: URL(fileURLWithPath: file))

        let result = try await QueueSimProcess.runOffPool(["compare", base, victim], limit: .seconds(30))
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("queuesim compare: \(victim)\(tampering.words)"), "\(result.stderr)")
        #expect(!result.stdout.contains("no rule broken"))
        // The same refusal with the tampered folder as the base.
        let swapped = try await QueueSimProcess.runOffPool(["compare", victim, base], limit: .seconds(30))
        #expect(swapped.status == 2, "\(swapped.stderr)")
        #expect(swapped.stderr.contains(victim + tampering.words), "\(swapped.stderr)")
    }

    @Test func anUntouchedCopyOfAnotherRunIsCompared() async throws {
        let scenario = try TemporaryScenario(CompareCommandTests.scenario)
        let base = try await CompareCommandTests.run(scenario)
        let copy = try Self.copy(try await CompareCommandTests.run(scenario))
        let result = try await QueueSimProcess.runOffPool(["compare", base, copy], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("no rule broken"))
    }

    /// Three wall-clock shards of 30 visitors against one `queuesim serve` on loopback (a
    /// virtual run cannot be sharded), merged whole and without shard 2.
    @Test(.timeLimit(.minutes(2)))
    func aPartialMergeIsNotAWholeRun() async throws {
        let room = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            waitingRoom: { mode: queue, outflow: 60000/min }
            """)
        let server = try ServeProcess(arguments: ["serve", room.path, "--port", "0"])
        defer { server.kill() }
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: sharded
            seed: 7
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(try server.waitForPort())" }
            client: { pollInterval: 200ms, maxWait: 30s }
            arrivals: { phases: [ { burst: 30 } ] }
            """)
        var shards: [String] = []
        for index in 0..<3 {
            let out = RunCommandProcess.reportDirectory()
            let shard = try await QueueSimProcess.runOffPool(
                // Not the room's alignment under test (a serve without --start-at): the merge's.
                ["run", scenario.path, "--shard", "\(index)/3", "--out", out, "--quiet", "--ignore-room-start"],
                limit: .seconds(60))
            #expect(shard.status == 0, "\(shard.stderr)")
            shards.append(out)
        }
        let (whole, partial) = (RunCommandProcess.reportDirectory(), RunCommandProcess.reportDirectory())
        let full = try await QueueSimProcess.runOffPool(["merge"] + shards + ["--out", whole], limit: .seconds(30))
        #expect(full.status == 0, "\(full.stdout)\(full.stderr)")
        let merge = try await QueueSimProcess.runOffPool(
            ["merge", shards[0], shards[1], "--out", partial, "--allow-partial"], limit: .seconds(30))
        #expect(merge.status == 5, "\(merge.stdout)\(merge.stderr)")

        for arguments in [[whole, partial], [partial, whole], [whole, partial, "--force"]] {
            let result = try await QueueSimProcess.runOffPool(["compare"] + arguments, limit: .seconds(30))
            #expect(result.status == 2, "\(arguments): \(result.stdout)\n\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "queuesim compare: \(partial) is not a whole run: it is a partial merge (exit 5): merged without shard(s) 2 of 3"
                ), "\(result.stderr)")
            #expect(result.stderr.contains("compare judges only finished runs (exit 0 or 1)"))
        }
        // The whole merge is a run like any other: compared with one process's run of the file.
        let single = RunCommandProcess.reportDirectory()
        let run = try await QueueSimProcess.runOffPool(
            ["run", scenario.path, "--out", single, "--quiet"], limit: .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
        let compared = try await QueueSimProcess.runOffPool(["compare", single, whole], limit: .seconds(30))
        #expect(compared.status == 0 || compared.status == 1, "\(compared.stderr)")
        #expect(compared.stdout.hasPrefix("queuesim compare: sharded\n"), "\(compared.stdout)")
    }

    @Test func anInterruptedRunIsNotAWholeRun() async throws {
        let scenario = try TemporaryScenario(CompareCommandTests.scenario)
        let base = try await CompareCommandTests.run(scenario)
        // On the wall clock the 400 visitors wait 20 s for the outflow: interrupted well before.
        let out = RunCommandProcess.reportDirectory()
        let interrupted = try await QueueSimProcess.runOffPool(
            ["run", scenario.path, "--clock", "wall", "--out", out, "--quiet"], limit: .seconds(30),
            interruptAfter: .seconds(2))
        #expect(interrupted.status == 130, "\(interrupted.stderr)")
        let result = try await QueueSimProcess.runOffPool(["compare", base, out], limit: .seconds(30))
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stderr.contains("queuesim compare: \(out) is not a whole run: it was interrupted (exit 130)"),
            "\(result.stderr)")
    }

    /// A run killed with SIGKILL part-way, then `queuesim recover`: a valid report of the rows
    /// up to the kill, marked incomplete, and never compared.
    @Test(.timeLimit(.minutes(2)))
    func aRecoveredRunIsNotAWholeRun() async throws {
        typealias Folder = ReportFolderCommandTests
        let scenario = try Folder.fastScenario()
        let base = RunCommandProcess.reportDirectory()
        let whole = try await QueueSimProcess.runOffPool(
            ["run", scenario, "--clock", "virtual", "--out", base, "--quiet"], limit: .seconds(60))
        #expect(whole.status == 0, "\(whole.stderr)")
        let out = RunCommandProcess.reportDirectory()
        let victim = try Folder.start(["run", scenario, "--out", out, "--quiet"])
        defer { if victim.isRunning { kill(victim.processIdentifier, SIGKILL) } }
        #expect(Folder.wait(.seconds(30)) { Folder.spoolBytes(out) > 5_000 })
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        let recover = try await QueueSimProcess.runOffPool(["recover", out], limit: .seconds(30))
        #expect(recover.status == 0, "\(recover.stderr)")

        let result = try await QueueSimProcess.runOffPool(["compare", base, out, "--force"], limit: .seconds(30))
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stderr.contains("queuesim compare: \(out) is not a whole run: it is incomplete (exit "),
            "\(result.stderr)")
        #expect(result.stderr.contains("): the run was killed"), "\(result.stderr)")
    }

    @Test func oneRunGivenTwiceIsRefused() async throws {
        let scenario = try TemporaryScenario(CompareCommandTests.scenario)
        let out = try await CompareCommandTests.run(scenario)
        let runFolder = try FileManager.default.destinationOfSymbolicLink(atPath: out)
        let resolved =
            runFolder.hasPrefix("/") ? runFolder : (out as NSString).deletingLastPathComponent + "/" + runFolder
        for (base, new) in [(out, out), (out, resolved), (resolved, out + "/")] {
            let result = try await QueueSimProcess.runOffPool(["compare", base, new, "--force"], limit: .seconds(30))
            #expect(result.status == 2, "\(base) \(new): \(result.stdout)")
            #expect(
                result.stderr.contains("queuesim compare: \(base) and \(new) are the same folder ("), "\(result.stderr)"
            )
            #expect(result.stdout.isEmpty)
        }
        // A copy keeps its run id: the same run in two places.
        let copy = try Self.copy(out)
        let result = try await QueueSimProcess.runOffPool(["compare", out, copy], limit: .seconds(30))
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("queuesim compare: \(out) and \(copy) are the same run (both are run "))
    }
}
