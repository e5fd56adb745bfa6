import Foundation
import Testing

@testable import QueueSim

@Suite("Ready-made scenarios")
struct ScenarioFilesTests {
    static let files: [String] = {
        let folder = ScenarioTestSupport.repositoryRoot + "/scenarios"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder + "/" + $0 }
    }()

    @Test func theFolderHasTheReadyMadeScenarios() {
        #expect(
            Self.files.map { ($0 as NSString).lastPathComponent } == [
                "hybrid.yaml", "impatient.yaml", "invite-only.yaml", "launch.yaml", "proxy.yaml", "soak.yaml",
                "what-outflow.yaml",
            ])
    }

    @Test(arguments: files)
    func everyScenarioValidates(path: String) {
        #expect(throws: Never.self) { try ScenarioLoader.load(path: path, environment: [:]) }
    }

    @Test func launchIsTheQuickDemoTheREADMEPromises() throws {
        let launch = try ScenarioLoader.load(
            path: ScenarioTestSupport.repositoryRoot + "/scenarios/launch.yaml", environment: [:])
        #expect(launch.arrivals.plannedVisitorCount == 1_900)
        #expect(launch.arrivals.peakRatePerSecond == 150)
        #expect(launch.groups.map(\.name) == ["app", "invited", "partner"])
        #expect(launch.waitingRoom?.outflowPerSecond == 100)
        #expect(launch.waitingRoom?.secretKey == "dev-secret")
        #expect(launch.run.duration == .seconds(50))
        // Enough keys for every invited visitor with `order: unique`.
        let keys = try CSVColumnReader.read(
            path: ScenarioTestSupport.repositoryRoot + "/scenarios/data/keys.csv", column: "key")
        #expect(keys.count == 1_000)
        #expect(Set(keys).count == keys.count)
    }
}

@Suite("Arrival planning")
struct ArrivalPlanningTests {
    @Test func countsRampsBurstsAndPausesAndHonoursTheCap() {
        var arrivals = Arrivals(phases: [
            .steady(duration: .seconds(10), rate: 20, rampTo: 150), .burst(count: 800), .pause(duration: .seconds(5)),
            .steady(duration: .milliseconds(1500), rate: 3, rampTo: nil),
        ])
        #expect(arrivals.plannedVisitorCount == 850 + 800 + 0 + 5)
        #expect(arrivals.plannedDuration == .milliseconds(16_500))
        #expect(arrivals.peakRatePerSecond == 150)
        arrivals.maxVisitors = 1000
        #expect(arrivals.plannedVisitorCount == 1000)
    }
}

@Suite("CSV column reader")
struct CSVColumnReaderTests {
    let keys = ScenarioTestSupport.fixtures + "/keys.csv"

    @Test func readsQuotedFieldsByRFC4180() throws {
        #expect(try CSVColumnReader.read(path: keys, column: "key") == ["KEY-1", "KEY-2", "KEY-\"3\""])
        #expect(try CSVColumnReader.read(path: keys, column: "note") == ["first, quoted", "plain", "multi"])
    }

    @Test func parsesLineBreaksInsideQuotesAndCRLF() throws {
        let rows = try CSVColumnReader.parse("a,b\r\n\"x\ny\",2\r\n\r\n3,\"\"\n", path: "t.csv")
        #expect(rows == [["a", "b"], ["x\ny", "2"], ["3", ""]])
    }

    @Test func saysWhatIsWrong() {
        #expect(
            throws: CSVColumnReader.Failure.missingColumn(
                path: keys, column: "token", columnCount: 3)
        ) {
            try CSVColumnReader.read(path: keys, column: "token")
        }
        #expect(throws: CSVColumnReader.Failure.unreadable(path: "/nonexistent/k.csv", reason: "no such file")) {
            try CSVColumnReader.read(path: "/nonexistent/k.csv", column: "key")
        }
        #expect(
            throws: CSVColumnReader.Failure.malformed(path: "t.csv", line: 2, reason: "a quoted field is never closed")
        ) {
            try CSVColumnReader.parse("a\n\"open\n", path: "t.csv")
        }
    }
}

@Suite("The contract's example")
struct ContractExampleTests {
    /// The annotated example of the founding scenario contract (kept verbatim in
    /// Fixtures/scenarios/contract) is a valid scenario.
    @Test func validatesWithEveryValueRead() throws {
        let scenario = try ScenarioLoader.load(
            path: ScenarioTestSupport.fixtures + "/contract/contract.yaml", environment: ["QUEUESIM_SECRET": "s"])
        #expect(scenario.name == "launch")
        #expect(scenario.seed == 42)
        #expect(scenario.target.waitingRoomDomain == nil)
        // The contract's example names iOS-3.5.2; the default is what that SDK really sends (iOS-3.5.1).
        #expect(
            scenario.client
                == ClientSettings(
                    sdkVersion: "iOS-3.5.2", userAgent: "queuesim/1 (virtual visitor)", requestTimeout: .seconds(10)))
        #expect(
            scenario.arrivals.phases == [
                .steady(duration: .seconds(30), rate: 10, rampTo: 200),
                .steady(duration: .seconds(60), rate: 200, rampTo: nil), .burst(count: 2000),
            ])
        #expect(scenario.groups.map(\.weight) == [80, 15, 5])
        #expect(
            scenario.groups[2].overrides
                == TargetOverrides(waitingRoomDomain: "q.partner.example", queuePathPrefix: "queue"))
        #expect(scenario.waitingRoom?.secretKey == "s")
        #expect(scenario.waitingRoom?.outflowPerSecond == 10)
        #expect(scenario.waitingRoom?.faults.count == 2)
        #expect(scenario.run == RunSettings(concurrency: 10_000, duration: .seconds(600)))
        #expect(
            scenario.thresholds.map(\.source) == [
                "passed >= 99%", "error < 0.5%", "wait.p95 < 5m", "enqueue.p99 < 300ms",
            ])
        #expect(scenario.reportsDirectory == "reports/launch")
    }
}
