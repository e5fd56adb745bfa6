import Foundation
import Testing

@testable import QueueSim

/// Issue 53, item 4: a replayed file that cannot be replayed is refused at the scenario's
/// `replay:` with the file's own line (FILE:LINE), never a crash or a silently shorter plan.
@Suite("Replay: bad files")
struct ReplayBadFileTests {
    static func problems(_ files: [String: String], arrivals: String, room: String = "") throws -> [String] {
        let folder = try ReplayFolder(files)
        return folder.problems(ReplayFolder.scenario(arrivals: arrivals, room: room))
    }

    @Test func anEmptyFile() throws {
        let problems = try Self.problems(["c.csv": ""], arrivals: "{ replay: c.csv }")
        #expect(
            problems == [
                "7:21: `arrivals.replay`: c.csv: the file is empty; expected a header row, then one row per minute"
            ])
        let headerOnly = try Self.problems(["c.csv": "minute,n\n"], arrivals: "{ replay: c.csv }")
        #expect(headerOnly == ["7:21: `arrivals.replay`: c.csv:1: a header but no rows; expected one row per minute"])
    }

    @Test func timesThatGoBackNameTheirLine() throws {
        let file = "minute,n\n2026-05-01T09:00:00Z,1\n\n2026-05-01T08:59:00Z,1\n"
        let problems = try Self.problems(["c.csv": file], arrivals: "{ replay: c.csv }")
        #expect(
            problems == [
                "7:21: `arrivals.replay`: c.csv:4: the time 2026-05-01T08:59:00Z is not after line 2's (2026-05-01T09:00:00Z); rows must ascend in time"
            ])
        let within = try Self.problems(
            ["c.csv": "minute,n\n2026-05-01T09:00:00Z,1\n2026-05-01T09:00:30Z,1\n"], arrivals: "{ replay: c.csv }")
        #expect(within.first?.contains("c.csv:3: the time 2026-05-01T09:00:30Z falls within line 2's minute") == true)
        let log = try Self.problems(
            ["t.log": "1714554001\n1714554002\n1714554000.5\n"], arrivals: "{ replay: t.log, timestamps: epoch }")
        #expect(
            log == [
                "7:21: `arrivals.replay`: t.log:3: 2024-05-01T09:00:00.5Z is before line 2's 2024-05-01T09:00:02Z; a replay keeps the file's order, so times must not go back"
            ])
    }

    @Test func aNegativeCountNamesLineAndColumn() throws {
        let problems = try Self.problems(
            ["c.csv": "minute,a,b\n0,1,2\n1,3,-4\n"], arrivals: "{ replay: c.csv, column: b }")
        #expect(problems == ["7:21: `arrivals.replay`: c.csv:3: `b` (field 3) is -4; arrivals cannot be negative"])
    }

    @Test func anUnknownColumnListsTheColumns() throws {
        let problems = try Self.problems(
            ["c.csv": "minute,queueinflow,maxoutflow\n0,1,2\n"], arrivals: "{ replay: c.csv, column: inflow }")
        #expect(
            problems == [
                "7:36: `arrivals.column`: c.csv:1: no column named `inflow`; the file's columns are `minute`, `queueinflow`, `maxoutflow`"
            ])
        let unnamed = try Self.problems(["c.csv": "minute,a,b\n0,1,2\n"], arrivals: "{ replay: c.csv }")
        #expect(
            unnamed.first?.hasSuffix(
                "name the column of arrivals with `column:`; the file's columns are `minute`, `a`, `b`") == true)
    }

    @Test func aMissingFileIsNamedAsWrittenAndAsResolved() throws {
        let folder = try ReplayFolder()
        let problems = folder.problems(ReplayFolder.scenario(arrivals: "{ replay: data/none.csv }"))
        #expect(
            problems == [
                "7:21: `arrivals.replay`: data/none.csv: cannot read it (resolved to \(folder.path)/data/none.csv): no such file"
            ])
        let log = folder.problems(ReplayFolder.scenario(arrivals: "{ replay: none.log, timestamps: nginx }"))
        #expect(
            log == [
                "7:21: `arrivals.replay`: none.log: cannot read it (resolved to \(folder.path)/none.log): no such file"
            ])
    }

    @Test func aLineWithoutATimeIsNamedButNeverQuoted() throws {
        let log =
            "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\"\n10.0.0.1 - - \"GET /?queueittoken=s3cr3t\"\n"
        let problems = try Self.problems(["a.log": log], arrivals: "{ replay: a.log, timestamps: nginx }")
        #expect(
            problems == [
                "7:21: `arrivals.replay`: a.log:2: no nginx time such as [10/Oct/2000:13:55:36 -0700] on this line"
            ])
        #expect(!problems.joined().contains("s3cr3t"))
    }

    @Test func keysThatDoNotFitAreRefusedByName() throws {
        let stats = ["c.csv": "minute,n\n0,1\n"]
        #expect(
            try Self.problems(stats, arrivals: "{ replay: c.csv, phases: [ { burst: 1 } ] }").first?.contains(
                "`arrivals.replay` takes the place of `phases`") == true)
        #expect(
            try Self.problems(stats, arrivals: "{ replay: c.csv, timestamps: iso, column: n }").first?.contains(
                "`arrivals.column` reads a file of counts") == true)
        #expect(
            try Self.problems(stats, arrivals: "{ column: n, phases: [ { burst: 1 } ] }") == [
                "7:21: `arrivals.column` belongs to a replay: add `replay: FILE` beside it, or remove it"
            ])
        #expect(
            try Self.problems(stats, arrivals: "{ replay: c.csv, from: 2026-05-01T09:00:00Z }").first?.contains(
                "`arrivals.from` must be a number of minutes (as the file's first column) or a duration") == true)
        #expect(
            try Self.problems(["c.csv": "minute,n\n0,0\n"], arrivals: "{ replay: c.csv }") == [
                "7:21: `arrivals.replay`: the rows of c.csv between `from` and `to` bring no visitors"
            ])
    }

    @Test func outflowReplayProblemsAreNamedToo() throws {
        let room = "waitingRoom: { outflow: { replay: s.csv, column: maxoutflow } }"
        let arrivals = "{ phases: [ { burst: 1 } ] }"
        #expect(
            try Self.problems(["s.csv": "minute,maxoutflow\n0,\n1,60\n"], arrivals: arrivals, room: room) == [
                "8:35: `waitingRoom.outflow.replay`: s.csv:2: `maxoutflow` is empty in the first row; the outflow at the room's start must be written"
            ])
        #expect(
            try Self.problems(["s.csv": "minute,maxoutflow\n0,60\n1,0\n"], arrivals: arrivals, room: room).first?
                .contains(
                    "s.csv:3: `maxoutflow` is 0/min, a room with no outflow releases nobody") == true)
        #expect(
            try Self.problems(["s.csv": "minute,max\n0,60\n"], arrivals: arrivals, room: room) == [
                "8:50: `waitingRoom.outflow.column`: s.csv:1: no column named `maxoutflow`; the file's columns are `minute`, `max`"
            ])
    }

    @Test func aReplaysGenericWordsSendNobodyToArrivals() throws {
        let folder = try ReplayFolder()
        let yaml =
            ReplayFolder.scenario(arrivals: "{ phases: [ { burst: 1 } ] }")
            + "\nvisitors: [ { name: a, column: keys } ]\n"
        let problems = folder.problems(yaml)
        #expect(problems.count == 1)
        #expect(
            problems.first?.contains("unknown key `column` in `visitors[0]`; expected one of") == true, "\(problems)")
    }
}
