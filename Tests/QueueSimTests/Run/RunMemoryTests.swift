import Foundation
import Testing

@testable import QueueSim

/// The memory estimate every run passes before it starts (docs/scenarios.md, "Limits").
@Suite("run memory: estimate and budget")
struct RunMemoryTests {
    static let header = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        client: { requestTimeout: 1s, maxWait: 60s, maxRestarts: 0 }

        """

    func prepare(_ arrivals: String, options: RunOptions = RunOptions(maxMemory: .init(bytes: 1 << 40, origin: "test")))
        throws -> PreparedRun
    {
        let folder = try RunFixture.makeFolder()
        return try RunFixture.prepare(Self.header + arrivals, folder: folder, options: options)
    }

    /// A visitor stays at most 5 × 1 s + 15 s + 60 s + 2 × 1 s = 82 s here, so arrivals 10 s
    /// apart overlap 9 at a time (the 9th arrives 80 s after the first).
    @Test func theInFlightPeakCountsArrivalsWithinOneLongestVisit() throws {
        let prepared = try prepare("arrivals: { phases: [ { duration: 1000s, rate: 0.1 } ] }")
        #expect(prepared.summary.visitorCount == 100)
        #expect(prepared.summary.peakInFlight == 9)
        #expect(prepared.memoryEstimate.bytes == (64 << 20) + 100 * 64 + 9 * 2048 + (24 << 10))
    }

    /// A virtual visitor in flight is estimated at 512 bytes when every visitor is a lean iOS
    /// one, at 1 KiB otherwise (Android, enqueue keys, behaviours), a wall-clock one (with its
    /// connections' buffers) at 2 KiB: the same plan on the virtual clock fits a budget the wall
    /// clock's does not.
    @Test func aVirtualVisitorInFlightIsEstimatedAtHalfAWallClockOne() throws {
        let virtual = try prepare("clock: virtual\narrivals: { phases: [ { duration: 1000s, rate: 0.1 } ] }")
        #expect(virtual.memoryEstimate.bytes == (64 << 20) + 100 * 64 + 9 * 512 + (24 << 10))
        for visitors in [
            "visitors: [ { name: app, platform: android } ]",
            "visitors: [ { name: app, platform: { ios: 90%, android: 10% } } ]",
            "visitors: [ { name: app, enqueueKey: key-1 } ]",
            "visitors: [ { name: app, patience: { mean: 5m } } ]",
            "visitors: [ { name: app, flow: protectedApi } ]",
        ] {
            let full = try prepare(
                "clock: virtual\n\(visitors)\narrivals: { phases: [ { duration: 1000s, rate: 0.1 } ] }")
            #expect(full.memoryEstimate.bytes == (64 << 20) + 100 * 64 + 9 * 1024 + (24 << 10), "\(visitors)")
        }
        let budget = MemoryBudget(bytes: 256 << 20, origin: "--max-memory 256MiB")
        let burst = "run: { concurrency: 200000 }\narrivals: { phases: [ { burst: 100000 } ] }"
        #expect(throws: (any Error).self) { try prepare(burst, options: RunOptions(maxMemory: budget)) }
        _ = try prepare("clock: virtual\n" + burst, options: RunOptions(maxMemory: budget))
    }

    @Test func aBurstIsAllInFlightAtOnce() throws {
        let prepared = try prepare("arrivals: { phases: [ { burst: 500 }, { pause: 1h }, { burst: 300 } ] }")
        #expect(prepared.summary.peakInFlight == 500)
    }

    @Test func theHardStopShortensTheLongestVisit() throws {
        let prepared = try prepare(
            "run: { duration: 15s }\narrivals: { phases: [ { duration: 1000s, rate: 0.1 } ] }")
        #expect(prepared.summary.peakInFlight == 2)
    }

    @Test func aPlanOverTheBudgetIsRefusedWithWhatToChange() throws {
        let budget = MemoryBudget(bytes: 64 << 20, origin: "--max-memory 64MiB")
        #expect {
            try prepare("arrivals: { phases: [ { burst: 1000 } ] }", options: RunOptions(maxMemory: budget))
        } throws: { error in
            "\(error)"
                == "this run would need at least 66 MiB of memory (about 1000 visitors, at least 1000 in flight at once), more than its budget of 64 MiB (--max-memory 64MiB); lower the visitor count or the time a visitor can stay (client.maxWait), or raise the budget with --max-memory"
        }
    }

    /// 100,000 visitors at 1,000/s for 100 s, with a longest visit of 82 s (the 1,000 who start
    /// within one second counted at the full size in flight): the phases alone
    /// promise half of 82,000 at once (90.1 MiB, under the budget), the walk finds 82,000 (over
    /// it).
    @Test func aPlanThatFitsOnItsFaceIsStillRefusedWhenItsWalkedPeakDoesNot() throws {
        let budget = MemoryBudget(bytes: 100 << 20, origin: "--max-memory 100MiB")
        #expect {
            try prepare(
                "clock: virtual\narrivals: { phases: [ { duration: 100s, rate: 1000 } ] }",
                options: RunOptions(maxMemory: budget))
        } throws: { error in
            "\(error)".hasPrefix(
                "this run would need about 110.4 MiB of memory (100000 visitors, up to 82000 in flight at once)")
        }
    }

    @Test func budgetsAreReadInBinaryUnits() {
        #expect(MemoryBudget.parse("4GiB")?.bytes == 4 << 30)
        #expect(MemoryBudget.parse("512M")?.bytes == 512 << 20)
        #expect(MemoryBudget.parse("1000")?.bytes == 1000)
        #expect(MemoryBudget.parse("0") == nil)
        #expect(MemoryBudget.parse("-1GiB") == nil)
        #expect(MemoryBudget.parse("9999999999TiB") == nil)
        #expect(MemoryBudget.parse("4 GB") == nil)
    }

    @Test func theDefaultBudgetIsMostOfWhatTheProcessMayUse() {
        let budget = MemoryBudget.machineDefault()
        #expect(budget.bytes > 0)
        #expect(budget.bytes <= MemoryBudget.physicalMemory())
        #expect(budget.origin.hasPrefix("80% of this"))
    }
}
