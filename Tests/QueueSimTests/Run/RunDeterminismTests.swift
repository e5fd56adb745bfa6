import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// The same scenario and seed: the same plan, and a virtual run that writes the same bytes.
@Suite("same seed, same run", .timeLimit(.minutes(1)))
struct RunDeterminismTests {
    /// Poisson arrivals, weighted groups, a random feeder, jitter and a seeded fault: every
    /// source of randomness a run has.
    static func yaml(keysFile: String) -> String {
        """
        version: 1
        name: determinism
        seed: 11
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 1s, maxWait: 20s }
        arrivals:
          process: poisson
          phases: [ { duration: 5s, rate: 20, rampTo: 60 }, { burst: 50 } ]
        visitors:
          - { name: app, weight: 3 }
          - { name: invited, weight: 1, enqueueKey: { csv: \(keysFile), column: key, order: random } }
        waitingRoom:
          mode: safetynet
          outflow: 120/min
          latency: { enqueue: 20ms, queuePage: 10ms, jitter: 8ms }
          faults: [ { from: 1s, to: 4s, endpoint: enqueue, status: 503, rate: 30% } ]
        """
    }

    static func writeKeys(in folder: String) throws -> String {
        let keys = "key\n" + (1...40).map { "KEY-\($0)" }.joined(separator: "\n") + "\n"
        try keys.write(toFile: folder + "/keys.csv", atomically: true, encoding: .utf8)
        return "keys.csv"
    }

    static func plan(_ yaml: String, folder: String, seed: UInt64? = nil) throws -> [PlannedVisitor] {
        var plan = try RunFixture.prepare(yaml, folder: folder, options: RunOptions(seed: seed)).makePlan()
        var visitors: [PlannedVisitor] = []
        while let visitor = try plan.next() { visitors.append(visitor) }
        return visitors
    }

    @Test("two plans from one seed are equal, visitor by visitor; another seed differs")
    func samePlan() throws {
        let folder = try RunFixture.makeFolder()
        let yaml = Self.yaml(keysFile: try Self.writeKeys(in: folder))
        let first = try Self.plan(yaml, folder: folder)
        let second = try Self.plan(yaml, folder: folder)
        #expect(first.count > 100)
        #expect(first == second)
        let other = try Self.plan(yaml, folder: folder, seed: 12)
        #expect(other.map(\.arrival) != first.map(\.arrival))
        #expect(other.map(\.userId) != first.map(\.userId))
    }

    @Test("two virtual runs with one seed write byte-identical CSV files")
    func sameBytes() throws {
        let folder = try RunFixture.makeFolder()
        let yaml = Self.yaml(keysFile: try Self.writeKeys(in: folder))
        func run(_ name: String, seed: UInt64? = nil) throws -> (RunReports, [String: [UInt8]]) {
            let scenario = try RunFixture.scenario(yaml, folder: folder)
            let options = RunOptions(outputDirectory: folder + "/" + name, seed: seed, clock: .virtual)
            let prepared = try PreparedRun(scenario: scenario, options: options)
            let report = try VirtualClockRunner(
                run: prepared, progress: RunProgress(planned: 0), stopSignal: RunStopSignal()
            ).execute()
            var bytes: [String: [UInt8]] = [:]
            for file in [Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile] {
                bytes[file] = Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)/\(file)")))
            }
            return (try RunReports(report: report), bytes)
        }
        let (reports, first) = try run("a")
        let (_, second) = try run("b")
        let (_, otherSeed) = try run("c", seed: 99)
        reports.expectContract(arrivals: reports.visitors.rows.count)
        // The scenario has to exercise something for the comparison to mean anything.
        #expect(Set(reports.visitors.column("outcome")).count >= 2)
        #expect(reports.visitors.column("redirect_type").contains("safetynet"))
        for file in first.keys {
            #expect(first[file] == second[file], "\(file) differs between two runs with one seed")
        }
        #expect(first[Recorder.visitorsFile] != otherSeed[Recorder.visitorsFile])
    }
}
