import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// A visitor left `queued` on a queue page that runs its own script (Queue-it's real page) is
/// not a slow room: run.json, the report page and the end screen say why (issue 55 item 7).
@Suite("reports: visitors left on a real queue page")
struct ScriptPageReportTests {
    private func leftOnScriptPage(_ index: Int) -> VisitorRecord {
        var record = queuedVisitor(index, enqueueMs: 10, waitMs: 60_000, outcome: .queued)
        record.error = VisitorMachine.scriptPageCause
        return record
    }

    @Test("run.json counts them under queued_on_script_page and the page says why they stayed queued")
    func counted() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(leftOnScriptPage(0))
        try recorder.record(leftOnScriptPage(1))
        // Queued for another reason (the run ended): not counted.
        try recorder.record(queuedVisitor(2, enqueueMs: 10, waitMs: 60_000, outcome: .queued))
        try recorder.record(directVisitor(3, enqueueMs: 10, outcome: .passed))
        let report = try recorder.finish(ending(at: 61_000))
        #expect(report.queuedOnScriptPage == 2)

        let data = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.manifestFile)))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["queued_on_script_page"] as? Int == 2)
        let manifest = try RunManifest.read(data)
        #expect(manifest.queuedOnScriptPage == 2)

        let page = try readReport(directory, Recorder.pageFile)
        #expect(page.contains("2 visitor(s) ended <code>queued</code> on a real queue page"))
    }

    @Test("a run without such visitors writes no key and no note (the bytes of every other run stay)")
    func absent() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(queuedVisitor(0, enqueueMs: 10, waitMs: 60_000, outcome: .queued))
        let report = try recorder.finish(ending(at: 61_000))
        #expect(report.queuedOnScriptPage == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, Recorder.manifestFile)))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["queued_on_script_page"] == nil)
        #expect(!(try readReport(directory, Recorder.pageFile)).contains("real queue page"))
    }
}
