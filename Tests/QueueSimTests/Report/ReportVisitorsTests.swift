import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("visitors.csv")
struct ReportVisitorsTests {
    @Test("rows recorded out of order come out in arrival order, with the exact header")
    func rowsInArrivalOrder() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        var handshaken = VisitorRecord(
            index: 2, group: "app", flow: "run", arrival: at(2000), start: at(2005), outcome: .passed,
            redirectType: "queue", httpStatus: 200, attempts: 1, polls: 3, requests: 5,
            enqueueDecided: at(2030), queueEntered: at(2031), ended: at(9031), queueId: "q-3",
            token: .present)
        handshaken.connectTime = .microseconds(4_700)
        handshaken.tlsTime = .microseconds(12_300)
        try recorder.record(handshaken)
        try recorder.record(
            VisitorRecord(
                index: 0, group: "app", flow: "run", arrival: at(0), start: at(0), outcome: .disabled,
                redirectType: "disabled", httpStatus: 200, attempts: 1, requests: 1,
                enqueueDecided: at(20), ended: at(20)))
        try recorder.record(
            VisitorRecord(
                index: 1, group: "invited", flow: "tryPass", arrival: at(1000), start: at(1500),
                outcome: .unavailable, httpStatus: 503,
                error: "HTTP 503, \"Service Unavailable\"\nretries exhausted", attempts: 5, requests: 5,
                ended: at(16500)))
        _ = try recorder.finish(ending(at: 17000))

        let expected = """
            visitor,group,flow,arrival_ms,start_ms,outcome,redirect_type,http_status,error,attempts,polls,restarts,enqueue_ms,wait_ms,total_ms,queue_id,token,requests,connect_ms,tls_ms
            1,app,run,0,0,disabled,disabled,200,,1,0,0,20,0,20,,absent,1,,
            2,invited,tryPass,1000,1500,unavailable,,503,"HTTP 503, ""Service Unavailable""
            retries exhausted",5,0,0,,0,15500,,absent,5,,
            3,app,run,2000,2005,passed,queue,200,,1,3,0,25,7000,7031,q-3,present,5,4,12

            """
        #expect(try readReport(directory, Recorder.visitorsFile) == expected)
    }

    @Test("the contract's seventeen columns come first, in order")
    func contractColumns() {
        let contract =
            "visitor,group,flow,arrival_ms,start_ms,outcome,redirect_type,http_status,error,attempts,polls,restarts,enqueue_ms,wait_ms,total_ms,queue_id,token"
        #expect(VisitorRowFormat.header.hasPrefix(contract + ","))
    }

    @Test("a queue id is written from its packed words with the bytes of its text, quoted when it needs it")
    func packedQueueIdCells() {
        let uuid = "0b6f2a4e-5c1d-4e8a-9f3b-6d7e8f901234"
        let upperWithPrefix = "q:," + uuid.uppercased()
        var row = CSVRowBuilder()
        row.optionalPackedText(PackedText(uuid))
        row.optionalPackedText(PackedText(upperWithPrefix))
        row.optionalPackedText(PackedText("not a uuid, \"quoted\""))
        row.optionalPackedText(nil)
        row.integer(1)
        row.endRow()
        #expect(
            String(decoding: row.bytes, as: UTF8.self)
                == "\(uuid),\"q:,\(uuid.uppercased())\",\"not a uuid, \"\"quoted\"\"\",,1\n")
        var record = VisitorRecord(
            index: 0, group: "app", flow: "run", arrival: .origin, start: .origin, outcome: .passed, ended: .origin,
            queueId: upperWithPrefix)
        #expect(record.queueId == upperWithPrefix)
        #expect(record.packedQueueId == PackedText(upperWithPrefix))
        record.queueId = nil
        #expect(record.packedQueueId == nil)
    }

    @Test("commas, quotes, CR and LF are quoted; plain text is not")
    func csvEscaping() {
        var row = CSVRowBuilder()
        row.text("plain")
        row.text("a,b")
        row.text("say \"hi\"")
        row.text("line\r\nbreak")
        row.optionalText(nil)
        row.integer(-42)
        row.endRow()
        #expect(
            String(decoding: row.bytes, as: UTF8.self)
                == "plain,\"a,b\",\"say \"\"hi\"\"\",\"line\r\nbreak\",,-42\n")
    }

    @Test("a token quoted in an error message never reaches the report")
    func tokensAreRedacted() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        let secret = "e_spring~q_2b7f~ts_1700000000~h_0123456789abcdef"
        try recorder.record(
            VisitorRecord(
                index: 0, group: "app", flow: "run", arrival: at(0), start: at(0), outcome: .error,
                error:
                    "missing target: https://shop.example/?QueueItToken=\(secret)&x=1 enqueuetoken=abc.def",
                ended: at(10)))
        _ = try recorder.finish(ending(at: 1000))
        let csv = try readReport(directory, Recorder.visitorsFile)
        #expect(!csv.contains(secret))
        #expect(!csv.contains("abc.def"))
        #expect(csv.contains("QueueItToken=<redacted>&x=1 enqueuetoken=<redacted>"))
    }

    @Test("an unrecorded visitor fails finish loudly and keeps the spooled rows")
    func gapIsAnError() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(directVisitor(0, enqueueMs: 10, outcome: .disabled))
        try recorder.record(directVisitor(3, enqueueMs: 10, outcome: .disabled))
        let spool = Recorder.path(directory, Recorder.spoolFile)
        #expect(throws: Recorder.Failure.unrecordedVisitors(count: 2, firstIndex: 1, spoolPath: spool)) {
            try recorder.finish(ending(at: 1000))
        }
        #expect(
            !FileManager.default.fileExists(atPath: Recorder.path(directory, Recorder.visitorsFile)))
        #expect(FileManager.default.fileExists(atPath: spool))
    }

    @Test("recording a visitor twice is refused")
    func duplicateIsAnError() throws {
        let recorder = try Recorder(directory: try makeReportDirectory(), description: describeRun())
        try recorder.record(directVisitor(0, enqueueMs: 10, outcome: .disabled))
        #expect(throws: Recorder.Failure.duplicateVisitor(index: 0)) {
            try recorder.record(directVisitor(0, enqueueMs: 12, outcome: .passed))
        }
    }

    @Test("finish leaves exactly the seven reports: no .tmp or spool file behind")
    func atomicWritesLeaveNoTemporaryFiles() throws {
        let directory = try makeReportDirectory()
        // An old report in place must be replaced, not appended to.
        try "stale".write(
            toFile: Recorder.path(directory, Recorder.summaryFile), atomically: false, encoding: .utf8)
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(directVisitor(0, enqueueMs: 10, outcome: .disabled))
        _ = try recorder.finish(ending(at: 1000))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(
            files == [
                "metrics.prom", "minutes.csv", "report.html", "run.json", "summary.csv", "timeline.csv", "visitors.csv",
            ])
        #expect(try readReport(directory, Recorder.summaryFile).hasPrefix("group,outcome,"))
    }

    @Test("a run with no visitors still writes every report")
    func emptyRun() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        let report = try recorder.finish(ending(at: 0))
        #expect(report.visitorCount == 0)
        #expect(try readReport(directory, Recorder.visitorsFile) == VisitorRowFormat.header)
        #expect(
            try readReport(directory, Recorder.timelineFile)
                == "second,arrivals,started,enqueued,in_queue,passed,disabled,queued,unavailable,error,requests,enqueue_p95_ms,closed,restarted,interrupted,passed_wait_p50_ms,passed_wait_p95_ms,time_utc,connections_opened,enqueue_ok,enqueue_ko,queue_page_ok,queue_page_ko,protected_api_ok,protected_api_ko,abandoned,after_pass_requests\n0,0,0,0,0,0,0,0,0,0,0,,0,0,0,,,,,,,,,,,0,\n"
        )
    }
}
