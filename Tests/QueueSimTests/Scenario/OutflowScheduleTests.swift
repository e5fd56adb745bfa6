import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 54: one `OutflowSchedule` answers "the rate at t" and "released by t" for the room,
/// the warnings, `validate`'s estimate and the sweep. Held here by its own answers, and by the
/// room and the fluid model agreeing on the same schedule.
@Suite("outflow schedule")
struct OutflowScheduleTests {
    /// 600/min from the start, 1,200/min from 10 min, 300/min from 20 min.
    static let schedule = OutflowSchedule(
        first: 10,
        changes: [OutflowChange(at: .seconds(600), perSecond: 20), OutflowChange(at: .seconds(1200), perSecond: 5)])

    @Test func theRateAtATimeIsTheLastStepAtOrBeforeIt() {
        let schedule = Self.schedule
        #expect(schedule.perSecond(atSeconds: -1) == 10)
        #expect(schedule.perSecond(atSeconds: 599.999) == 10)
        #expect(schedule.perSecond(atSeconds: 600) == 20)
        #expect(schedule.perSecond(atSeconds: 1199.5) == 20)
        #expect(schedule.perSecond(atSeconds: 1e9) == 5)
        // The room asks in whole nanoseconds and gets the same steps.
        #expect(schedule.perSecond(atNanoseconds: 599_999_999_999) == 10)
        #expect(schedule.perSecond(atNanoseconds: 600_000_000_000) == 20)
        #expect(schedule.perSecond(atNanoseconds: .max) == 5)
        #expect(OutflowSchedule(first: 7).perSecond(atNanoseconds: .max) == 7)
    }

    @Test func releasedAndFinishAreInverses() {
        let schedule = Self.schedule
        // 5 min at 10/s, 10 min at 20/s, 5 min at 5/s.
        let expected: Double = 300 * 10 + 600 * 20 + 300 * 5
        #expect(schedule.released(from: 300, to: 1500) == expected)
        #expect(schedule.released(from: 700, to: 700) == 0)
        #expect(schedule.released(from: 700, to: 600) == 0)
        #expect(schedule.finish(from: 300, releasing: expected) == 1500)
        #expect(schedule.finish(from: 0, releasing: 100) == 10)
        for (start, work) in [(0.0, 5_999.0), (599.0, 30.0), (1000.0, 9_000.0)] {
            let end = schedule.finish(from: start, releasing: work)
            #expect(abs(schedule.released(from: start, to: end) - work) < 1e-6, "\(start) + \(work)")
        }
    }

    @Test func scalingAndWords() {
        let doubled = Self.schedule.scaled(by: 2)
        #expect(doubled.steps.map(\.perSecond) == [20, 40, 10])
        #expect(doubled.steps.map(\.at) == Self.schedule.steps.map(\.at))
        #expect(Self.schedule.startingAt(1).steps.map(\.perSecond) == [1, 20, 5])
        #expect(Self.schedule.description == "600/min, 1,200/min from 10m, 300/min from 20m")
        #expect(OutflowSchedule(first: 100).description == "6,000/min")
        #expect(OutflowSchedule(first: 100).isPlain && !Self.schedule.isPlain)
    }

    /// The embedded room and the fluid model read one schedule: a queue of 3,000 from the
    /// event start has had as many releases by each instant as the schedule says it released
    /// (within the one release the room's whole-nanosecond gaps may lag).
    @Test func theRoomReleasesWhatTheScheduleSays() {
        var configuration = RoomFixture.configuration(outflowPerMinute: 600)
        configuration.settings.outflowChanges = [
            OutflowChange(at: .seconds(60), perSecond: 20), OutflowChange(at: .seconds(120), perSecond: 5),
        ]
        var model = WaitingRoomModel(configuration: configuration)
        for _ in 0..<3_000 { _ = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0)) }
        let outflow = configuration.settings.outflow
        for seconds in [30.0, 60.0, 90.0, 119.5, 150.0, 200.0] {
            let room = model.releasedSlotCount(atNanoseconds: RoomFixture.at(seconds).wholeNanoseconds)
            let fluid = outflow.released(from: 0, to: seconds)
            #expect(abs(Double(room) - fluid) <= 1, "at \(seconds) s: room \(room), schedule \(fluid)")
        }
        #expect(model.schedule.outflow == outflow)
    }
}
