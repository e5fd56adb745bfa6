import Foundation
import Testing

/// `queuesim compare BASE NEW` (issue 31 item 5): what changed since the last run, judged by
/// rules, with chance told apart from regression.
@Suite("queuesim compare")
struct CompareCommandTests {
    /// A burst into a room whose outflow comes from the environment, so two runs of one file
    /// (same SHA-256, same plan) can differ in outflow only.
    static let scenario = """
        version: 1
        name: nightly
        seed: 5
        target: { customerId: acme, waitingRoomId: nightly }
        client: { pollInterval: 1s, maxWait: 10m }
        arrivals: { phases: [ { burst: 400 } ] }
        visitors: [ { name: app, weight: 3 }, { name: partner, weight: 1 } ]
        waitingRoom: { mode: queue, eventStart: 0s, outflow: "${OUTFLOW:-1200/min}" }
        compare:
          wait.p95: +20%
          total.p99: off
        """

    static func run(_ scenario: TemporaryScenario, outflow: String? = nil, seed: Int? = nil) async throws -> String {
        let out = RunCommandProcess.reportDirectory()
        var arguments = ["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"]
        if let seed { arguments += ["--seed", String(seed)] }
        let result = try await QueueSimProcess.runOffPool(
            arguments, limit: .seconds(60), environment: outflow.map { ["OUTFLOW": $0] } ?? [:])
        #expect(result.status == 0, "\(result.stderr)")
        return out
    }

    @Test func twoIdenticalVirtualRunsCompareWithEveryDifferenceZero() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let base = try await Self.run(scenario)
        let new = try await Self.run(scenario)
        let markdown = RunCommandProcess.reportDirectory() + ".md"
        let result = try await QueueSimProcess.runOffPool(
            ["compare", base, new, "--markdown", markdown], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("noise: none — both runs are virtual with seed 5"))
        // Every row's change is zero and no verdict says anything moved.
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("all ") || $0.hasPrefix("app ") }
        #expect(rows.count >= 8, "\(result.stdout)")
        for row in rows {
            #expect(row.contains("±0") && !row.contains("regression") && !row.contains("changed"), "\(row)")
        }
        #expect(result.stdout.contains("no rule broken"))
        let table = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(table.hasPrefix("### queuesim compare: PASS — nightly\n"))
        #expect(
            table.contains(
                "\n| scope | metric | base | new | change | noise | rule | verdict |\n|---|---|---|---|---|---|---|---|\n"
            ))
        #expect(table.contains("| all | passed | 100% | 100% | ±0pp |  | -1pp | ok |"), "\(table)")
        // The scenario's own rules, recorded in run.json, replace the defaults for their metrics.
        #expect(table.contains("| all | wait.p95 |") && table.contains("| +20% | ok |"))
        #expect(table.contains("| off | same |"))
    }

    @Test func aLowerOutflowBreaksTheWaitRuleAndSaysWhich() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let base = try await Self.run(scenario)
        let slower = try await Self.run(scenario, outflow: "600/min")
        let junit = RunCommandProcess.reportDirectory() + ".xml"
        let result = try await QueueSimProcess.runOffPool(
            ["compare", base, slower, "--junit", junit], limit: .seconds(30))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("rules broken: all wait.p95 +"), "\(result.stdout)")
        #expect(result.stdout.contains("(rule wait.p95: +20%)"))
        #expect(result.stderr.hasPrefix("queuesim compare: done (exit 1): "))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testcase classname=\"queuesim.compare.nightly.all\" name=\"wait.p95: +20%\""))
        #expect(xml.contains("<failure message=\"wait.p95: base "))
        // The same change, allowed by a rule from the command line, breaks nothing.
        let allowed = try await QueueSimProcess.runOffPool(
            ["compare", base, slower, "--rule", "wait.p95: +200%", "--rule", "total.p95: +200%"], limit: .seconds(30))
        #expect(allowed.status == 0, "\(allowed.stdout)")
    }

    @Test func runsOfDifferentSeedsCallASmallDifferenceNoise() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let base = try await Self.run(scenario, seed: 1)
        let other = try await Self.run(scenario, seed: 2)
        let result = try await QueueSimProcess.runOffPool(
            ["compare", base, other, "--rule", "wait.p50: +0%"], limit: .seconds(30))
        #expect(!result.stdout.contains("noise: none"))
        // Per group the wait percentiles move with the seed (the groups' visitors are drawn);
        // such moves are within the noise band, never a regression.
        #expect(!result.stdout.contains("  regression"), "\(result.stdout)")
        #expect(result.stdout.contains("  within noise") || result.stdout.contains("  noise"), "\(result.stdout)")
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test func foldersOfDifferentScenariosAreNotComparableUnlessForced() async throws {
        let base = try await Self.run(try TemporaryScenario(Self.scenario))
        let other = try await Self.run(try TemporaryScenario(Self.scenario + "\n# another file\n"))
        let result = try await QueueSimProcess.runOffPool(["compare", base, other], limit: .seconds(30))
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("are not comparable: the scenario file changed between them"), "\(result.stderr)")
        let forced = try await QueueSimProcess.runOffPool(["compare", base, other, "--force"], limit: .seconds(30))
        #expect(forced.status == 0, "\(forced.stderr)")
        // Forced, the file's change is named above the table with the rest of what differs.
        #expect(forced.stdout.contains("what differs:\n  scenario file SHA-256 "), "\(forced.stdout)")
        let notAFolder = try await QueueSimProcess.runOffPool(
            ["compare", base, "/nonexistent-folder"], limit: .seconds(30))
        #expect(notAFolder.status == 2)
        #expect(notAFolder.stderr.contains("/nonexistent-folder is not a report folder: it has no run.json"))
    }

    @Test func aBadRuleIsExitTwoWithWhatIsWrong() async throws {
        let base = try await Self.run(try TemporaryScenario(Self.scenario))
        for (rule, words) in [
            ("wait.p95 +10%", "is not a rule: write METRIC: CHANGE"),
            ("waits.p95: +10%", "`waits.p95` is not a metric (did you mean `wait.p95`?)"),
            ("error: 10%", "needs a sign"),
            ("wait.p95: +1pp", "percentage points (`pp`) are for shares"),
        ] {
            let result = try await QueueSimProcess.runOffPool(
                ["compare", base, base, "--rule", rule], limit: .seconds(30))
            #expect(result.status == 2)
            #expect(result.stderr.contains(words), "\(rule): \(result.stderr)")
        }
    }

    @Test func aScenarioCompareBlockIsCheckedAtItsPosition() async throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: nightly }
            arrivals: { phases: [ { burst: 4 } ] }
            compare:
              wait.p95: 10%
            """)
        let result = try await QueueSimProcess.runOffPool(["validate", scenario.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(scenario.path):5:13: "), "\(result.stderr)")
        #expect(result.stderr.contains("needs a sign"))
    }

    /// Found while writing compare's tests: Foundation's path methods crashed on a
    /// one-character path (`--out d`).
    @Test func aOneCharacterReportFolderIsAFolderLikeAnyOther() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let parent = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let result = try await QueueSimProcess.runOffPool(
            ["run", scenario.path, "--clock", "virtual", "--out", "d", "--quiet"], limit: .seconds(60),
            currentDirectory: parent)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: parent + "/d/run.json"))
    }
}
