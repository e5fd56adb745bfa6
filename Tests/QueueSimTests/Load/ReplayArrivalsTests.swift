import Foundation
import Testing

@testable import QueueSim

/// Issue 53, item 4: a crowd replayed from a file, on the virtual clock, read back from
/// visitors.csv's arrival times.
@Suite("Replaying a crowd", .timeLimit(.minutes(2)))
struct ReplayArrivalsTests {
    /// Queue-it's stats.csv shape: one row a minute, an empty cell for a minute without data.
    static let stats = """
        minute,queueinflow,maxoutflow
        2026-05-01T09:00:00Z,10,30
        2026-05-01T09:01:00Z,0,30
        2026-05-01T09:02:00Z,25,60
        2026-05-01T09:03:00Z,,60
        2026-05-01T09:04:00Z,7,60

        """

    @Test func aPerMinuteFileBringsEachMinutesCountSpreadEvenly() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let rows = try folder.run(ReplayFolder.scenario(arrivals: "{ replay: stats.csv, column: queueinflow }"))
        #expect(rows.arrivalsPer(60, count: 5) == [10, 0, 25, 0, 7])
        // Evenly: the k-th of the first minute's 10 sits at (k + ½) × 6 s.
        let first = rows.map(\.arrivalMs).sorted().prefix(10)
        #expect(Array(first) == (0..<10).map { Int64($0) * 6000 + 3000 })
    }

    @Test func poissonPlacesTheSameCountsAtRandomInstantsWithinEachMinute() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let yaml = ReplayFolder.scenario(arrivals: "{ replay: stats.csv, column: queueinflow, within: poisson }")
        let rows = try folder.run(yaml)
        #expect(rows.arrivalsPer(60, count: 5) == [10, 0, 25, 0, 7])
        let times = rows.map(\.arrivalMs).sorted()
        let uniform = (0..<10).map { Int64($0) * 6000 + 3000 }
        #expect(Array(times.prefix(10)) != uniform, "poisson must not space them evenly")
        // Seeded: the same seed places them the same, another seed elsewhere (same counts).
        #expect(try folder.run(yaml).map(\.arrivalMs).sorted() == times)
        let reseeded = try folder.run(
            ReplayFolder.scenario(
                arrivals: "{ replay: stats.csv, column: queueinflow, within: poisson }", seed: 7))
        #expect(reseeded.arrivalsPer(60, count: 5) == [10, 0, 25, 0, 7])
        #expect(reseeded.map(\.arrivalMs).sorted() != times)
    }

    @Test func scaleRoundsCumulativelySoTheTotalIsExact() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let rows = try folder.run(
            ReplayFolder.scenario(arrivals: "{ replay: stats.csv, column: queueinflow, scale: 1.5 }"))
        // Running totals 10, 10, 35, 35, 42 × 1.5 = 15, 15, 52.5 → 53, 53, 63.
        #expect(rows.arrivalsPer(60, count: 5) == [15, 0, 38, 0, 10])
        #expect(rows.count == 63)
    }

    @Test func speedCompressesTimeAndKeepsTheCounts() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let rows = try folder.run(
            ReplayFolder.scenario(arrivals: "{ replay: stats.csv, column: queueinflow, speed: 2 }"))
        #expect(rows.arrivalsPer(30, count: 5) == [10, 0, 25, 0, 7])
    }

    @Test func fromAndToChooseTheRowsAndFromIsSecondZero() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let byTime = try folder.run(
            ReplayFolder.scenario(
                arrivals:
                    "{ replay: stats.csv, column: queueinflow, from: 2026-05-01T09:02:00Z, to: 2026-05-01T09:04:00Z }"))
        #expect(byTime.arrivalsPer(60, count: 2) == [25, 0])
        let byDuration = try folder.run(
            ReplayFolder.scenario(arrivals: "{ replay: stats.csv, column: queueinflow, from: 2m }"))
        #expect(byDuration.arrivalsPer(60, count: 3) == [25, 0, 7])
    }

    @Test func aNumericTimeColumnCountsInTheFilesIntervalAndGapsBringNobody() throws {
        let folder = try ReplayFolder(["seconds.csv": "second,visitors\n0,2\n1,4\n5,1\n"])
        let rows = try folder.run(ReplayFolder.scenario(arrivals: "{ replay: seconds.csv, per: second }"))
        #expect(rows.arrivalsPer(1, count: 6) == [2, 4, 0, 0, 0, 1])
    }

    @Test func aLogKeepsItsOrderAndItsGaps() throws {
        let log = """
            10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /?queueittoken=abc HTTP/1.1" 200 12 "-" "curl"
            10.0.0.2 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 12 "-" "curl"
            10.0.0.3 - - [10/Oct/2000:13:55:40 -0700] "GET / HTTP/1.1" 200 12 "-" "curl"

            10.0.0.4 - - [10/Oct/2000:13:57:41 -0700] "GET / HTTP/1.1" 200 12 "-" "curl"

            """
        let folder = try ReplayFolder(["access.log": log, "times.csv": "at\n1714554000.25\n1714554000.5\n1714554003\n"])
        let nginx = try folder.run(ReplayFolder.scenario(arrivals: "{ replay: access.log, timestamps: nginx }"))
        #expect(nginx.map(\.arrivalMs).sorted() == [0, 0, 4000, 125_000])
        let epoch = try folder.run(
            ReplayFolder.scenario(arrivals: "{ replay: times.csv, timestamps: epoch, speed: 2 }"))
        #expect(epoch.map(\.arrivalMs).sorted() == [0, 125, 1375])
    }

    @Test func isoLogsTakeTheFirstTimeOnTheLineWithItsZone() throws {
        let alb = """
            http 2018-07-02T22:23:00.186641Z app/my-lb 1.2.3.4:80
            http 2018-07-02T23:23:01.186641+01:00 app/my-lb 1.2.3.4:80

            """
        let folder = try ReplayFolder(["alb.log": alb])
        let rows = try folder.run(ReplayFolder.scenario(arrivals: "{ replay: alb.log, timestamps: iso }"))
        #expect(rows.map(\.arrivalMs).sorted() == [0, 1000])
    }

    @Test func theOutflowReplayIsTheTypedScheduleOfItsChanges() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let replayed = try folder.load(
            ReplayFolder.scenario(
                arrivals: "{ phases: [ { burst: 90 } ] }",
                room: "waitingRoom: { outflow: { replay: stats.csv, column: maxoutflow } }"))
        let room = try #require(replayed.waitingRoom)
        #expect(room.outflowPerSecond == 0.5)
        #expect(room.outflowChanges == [OutflowChange(at: .seconds(120), perSecond: 1)])
        // The run releases as the typed schedule does, visitor for visitor.
        let typed = ReplayFolder.scenario(
            arrivals: "{ phases: [ { burst: 90 } ] }",
            room: "waitingRoom: { outflow: [ { at: 0s, rate: 30/min }, { at: 2m, rate: 60/min } ] }")
        let replayedRows = try folder.run(
            ReplayFolder.scenario(
                arrivals: "{ phases: [ { burst: 90 } ] }",
                room: "waitingRoom: { outflow: { replay: stats.csv, column: maxoutflow } }"))
        let typedRows = try folder.run(typed)
        #expect(replayedRows.map(\.waitMs) == typedRows.map(\.waitMs))
        let constant = try folder.run(
            ReplayFolder.scenario(arrivals: "{ phases: [ { burst: 90 } ] }", room: "waitingRoom: { outflow: 30/min }"))
        #expect(replayedRows.map(\.waitMs).max()! < constant.map(\.waitMs).max()!)
    }

    @Test func aLogIsCappedNotStretched() throws {
        let folder = try ReplayFolder(["t.log": "1714554000\n1714554001\n1714554003\n"])
        let scenario = try folder.load(ReplayFolder.scenario(arrivals: "{ replay: t.log, timestamps: epoch }"))
        let instants = { (visitors: Int?) in
            try ArrivalSchedule(scenario.arrivals, seed: 1, visitors: visitors).map(\.sinceOrigin)
        }
        #expect(try instants(nil) == [.zero, .seconds(1), .seconds(3)])
        #expect(try instants(2) == [.zero, .seconds(1)])
        #expect(try instants(10) == [.zero, .seconds(1), .seconds(3)])
        let capped = try folder.load(
            ReplayFolder.scenario(arrivals: "{ replay: t.log, timestamps: epoch, maxVisitors: 1 }"))
        #expect(try ArrivalSchedule(capped.arrivals, seed: 1).plannedCount == 1)
    }

    @Test func theOutflowReplayReadsFromAndSpeedAsArrivalsDo() throws {
        let folder = try ReplayFolder(["stats.csv": Self.stats])
        let scenario = try folder.load(
            ReplayFolder.scenario(
                arrivals: "{ phases: [ { burst: 1 } ] }",
                room: "waitingRoom: { outflow: { replay: stats.csv, column: maxoutflow, from: 1m, speed: 2 } }"))
        let room = try #require(scenario.waitingRoom)
        // From 09:01 on: 30/min, then 60/min from 09:02, i.e. 1 minute later, 30 s at speed 2;
        // every rate doubled with the pace.
        #expect(room.outflowPerSecond == 1)
        #expect(room.outflowChanges == [OutflowChange(at: .seconds(30), perSecond: 2)])
    }
}
