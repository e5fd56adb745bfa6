import Foundation
import Testing

@testable import QueueSim

/// Grid values in the key's own units, written back as a scenario writes them.
@Suite("Sweep values")
struct SweepValuesTests {
    func texts(_ values: SweepValues) throws -> [String] {
        try values.values().get().map(\.text)
    }

    @Test func aRateRangeIsWrittenInTheUnitOfItsFrom() throws {
        let values = try #require(SweepValues.parseArgument("600/min:1800/min:300/min"))
        #expect(try texts(values) == ["600/min", "900/min", "1200/min", "1500/min", "1800/min"])
        // Magnitudes are per second, for ordering and charts.
        #expect(try values.values().get().map(\.magnitude) == [10, 15, 20, 25, 30])
    }

    @Test func aRangeIncludesItsEndOnlyWhenAStepLandsOnIt() throws {
        #expect(try texts(.range(from: "1", to: "2", step: "0.3")) == ["1", "1.3", "1.6", "1.9"])
        #expect(try texts(.range(from: "0.1", to: "0.3", step: "0.1")) == ["0.1", "0.2", "0.3"])
    }

    @Test func durationsAndMixedUnitsOfOneKind() throws {
        #expect(try texts(.range(from: "5m", to: "6m", step: "30s")) == ["5m", "5.5m", "6m"])
        // A bare number is in the base unit (seconds, per second) and mixes with either kind.
        #expect(try texts(.range(from: "60s", to: "2m", step: 30.description)) == ["60s", "90s", "120s"])
        #expect(
            SweepValues.range(from: "600/min", to: "10m", step: "1").values()
                == .failure(.mixedUnits("600/min", "10m")))
    }

    @Test func listsKeepTheirTextAndOrder() throws {
        let values = try #require(SweepValues.parseArgument("2,1, 1.5"))
        #expect(try texts(values) == ["2", "1", "1.5"])
        #expect(SweepValues.list(["1", "x"]).values() == .failure(.notAValue("x")))
        #expect(SweepValues.list(["1", "1"]).values() == .failure(.repeated("1")))
    }

    @Test func badRangesSayWhy() {
        #expect(SweepValues.range(from: "1", to: "2", step: "0").values() == .failure(.stepNotPositive("0")))
        #expect(
            SweepValues.range(from: "3", to: "2", step: "1").values() == .failure(.toBeforeFrom(from: "3", to: "2")))
        #expect(SweepValues.range(from: "1", to: "5000", step: "1").values() == .failure(.tooManyValues(5000)))
        #expect(SweepValues.parseArgument("1:2") == nil)
    }
}

/// The 95 % interval over seeds (Student t).
@Suite("Sweep interval")
struct SweepIntervalTests {
    @Test func studentTIntervalOfFiveSeeds() throws {
        // mean 10, s = √2.5, t(0.975, 4) = 2.7764: half-width 2.7764 · 1.5811 / 2.2361 = 1.9632.
        let interval = try #require(SweepInterval([8, 9, 10, 11, 12]))
        #expect(interval.mean == 10)
        #expect(abs(try #require(interval.low) - 8.0368) < 1e-3)
        #expect(abs(try #require(interval.high) - 11.9632) < 1e-3)
    }

    @Test func oneSeedHasNoIntervalAndNoneHasNoMean() throws {
        let one = try #require(SweepInterval([7]))
        #expect(one.mean == 7 && one.low == nil && one.high == nil)
        #expect(SweepInterval([]) == nil)
    }

    @Test func theTQuantileTendsToTheNormal() {
        #expect(SweepInterval.tQuantile975(degreesOfFreedom: 1) == 12.7062)
        #expect(abs(SweepInterval.tQuantile975(degreesOfFreedom: 60) - 2.0003) < 1e-3)
        #expect(abs(SweepInterval.tQuantile975(degreesOfFreedom: 10_000) - 1.96) < 1e-3)
    }
}
