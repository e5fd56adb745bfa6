import Foundation
import Testing

/// The end screen says what judged the run and where the page is; `queuesim report DIR`
/// rebuilds the page from the folder (issue 13).
@Suite("queuesim report and the end screen")
struct ReportCommandTests {
    static let failingScenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 20 } ] }
        waitingRoom:
          faults:
            - { endpoint: enqueue, status: 400, rate: 50% }
        """

    @Test func aRunWithoutThresholdsSaysNothingJudgedItAndNamesThePageLast() throws {
        let scenario = try TemporaryScenario(Self.failingScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("no thresholds set: the exit code does not judge this run"))
        #expect(result.stdout.contains("exit 0: the run finished; no thresholds set, so nothing judged it"))
        #expect(!result.stdout.contains("every threshold held"))
        // The failures are explained by group, with their cause.
        #expect(result.stdout.contains("why visitors failed (top causes by group):"))
        #expect(result.stdout.contains("  default: HTTP 400 × "), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "report: \(out)/report.html")
        #expect(FileManager.default.fileExists(atPath: out + "/report.html"))
    }

    @Test func reportRebuildsThePageFromTheFolder() throws {
        let scenario = try TemporaryScenario(Self.failingScenario + "\nthresholds:\n  - error < 1%\n")
        let out = RunCommandProcess.reportDirectory()
        let run = try QueueSimProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")
        let written = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/report.html")
        let result = try QueueSimProcess.run(["report", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("thresholds: 1 of 1 FAILED"))
        #expect(result.stdout.contains("\nexit 1: a threshold failed (reports written)\n"), "\(result.stdout)")
        #expect(
            result.stderr
                == "queuesim report: done (exit 0): wrote \(out)/report.html; the run ended FAIL (exit 1)\n",
            "\(result.stderr)")
        #expect(result.stdout.hasSuffix("report: \(out)/report.html\n"))
        #expect(try String(contentsOfFile: out + "/report.html", encoding: .utf8) == written)
    }

    /// What a CI job trends on: run.json's overrides, command line and per-group figures, and
    /// the wall-clock time of each timeline second.
    @Test func runJsonCarriesTheCommandLineOverridesAndFiguresPerGroup() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 4 } ] }
            visitors: [ { name: app, weight: 1 }, { name: partner, weight: 1 } ]
            waitingRoom: { mode: disabled }
            """)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(["run", scenario.path, "--out", out, "--quiet", "--seed", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["overrides"] as? [String: String] == ["seed": "7"])
        #expect(
            json["command_line"] as? [String] == [
                "queuesim", "run", scenario.path, "--out", out, "--quiet", "--seed", "7",
            ])
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["app", "partner"])
        #expect(groups.map { $0["visitors"] as? Int ?? 0 }.reduce(0, +) == 4)
        let overall = try #require(json["overall"] as? [String: Any])
        #expect(overall["name"] as? String == "all")
        #expect((overall["outcomes"] as? [String: Int])?["disabled"] == 4)
        let enqueue = try #require(overall["enqueue_ms"] as? [String: Any])
        #expect(enqueue["count"] as? Int == 4 && enqueue["p99"] as? Int != nil)
        let wait = try #require(overall["wait_ms"] as? [String: Any])
        #expect(wait["count"] as? Int == 0 && wait["p50"] is NSNull)
        // A wall run stamps every timeline second in UTC.
        let timeline = try String(contentsOfFile: out + "/timeline.csv", encoding: .utf8).split(separator: "\n")
        let header = timeline[0].split(separator: ",")
        let time = try #require(header.firstIndex(of: "time_utc"))
        let cells = timeline[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(cells[time].hasSuffix("Z") && cells[time].contains("T"), "\(timeline[1])")
        // The wall clock counts the connections it opened and the answers (numbers, never empty).
        for name in ["connections_opened", "enqueue_ok", "enqueue_ko"] {
            let column = try #require(header.firstIndex { $0 == name })
            #expect(Int(cells[column]) != nil, "\(name): \(timeline[1])")
        }
    }

    @Test func aFolderThatIsNoReportIsExitTwo() throws {
        let folder = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try QueueSimProcess.run(["report", folder])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("queuesim report: \(folder) is not a report folder: it has no run.json"))
    }
}

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `run --junit FILE`: well-formed JUnit XML with the structure CI systems require.
@Suite("queuesim run --junit")
struct JUnitCommandTests {
    /// Element names with their attributes, in document order.
    final class Elements: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((name, attributes))
        }
    }

    @Test func everyThresholdAndGroupIsATestCase() throws {
        let scenario = try TemporaryScenario(
            ReportCommandTests.failingScenario + "\nthresholds:\n  - error < 1%\n  - visitors >= 20\n")
        let out = RunCommandProcess.reportDirectory()
        let junit = out + "-junit.xml"
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet", "--junit", junit])
        #expect(result.status == 1, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: junit))
        let parser = XMLParser(data: data)
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        let names = elements.elements.map(\.name)
        #expect(names.first == "testsuites")
        #expect(names.filter { $0 == "testsuite" }.count == 1)
        let suite = try #require(elements.elements.first { $0.name == "testsuite" })
        #expect(suite.attributes["name"] == "queuesim.scenario")
        // The group's case judges only thresholds naming the group (none here): its failed
        // visitors are listed, not failed (docs/reports.md, "JUnit").
        #expect(suite.attributes["tests"] == "3" && suite.attributes["failures"] == "1")
        let cases = elements.elements.filter { $0.name == "testcase" }
        #expect(
            cases.map { $0.attributes["name"] ?? "" } == [
                "error < 1%", "visitors >= 20", "default: its thresholds held",
            ])
        #expect(cases.allSatisfy { $0.attributes["classname"] != nil })
        let failures = elements.elements.filter { $0.name == "failure" }.compactMap { $0.attributes["message"] }
        #expect(failures.count == 1)
        #expect(failures[0].hasPrefix("measured ") && failures[0].hasSuffix(", limit < 1%"), "\(failures)")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<system-out>measured 20, limit &gt;= 20: pass</system-out>"), "\(text)")
        #expect(text.contains("failed visitors (not judged): HTTP 400 × "), "\(text)")
        // Credentials never reach CI: the file holds no token.
        #expect(!String(decoding: data, as: UTF8.self).contains("queueittoken"))
    }
}
