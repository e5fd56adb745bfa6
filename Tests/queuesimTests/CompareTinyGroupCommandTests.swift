import Foundation
import Testing

/// `queuesim compare`: a group of a handful of visitors gets no verdict between two seeds (`too
/// few visitors`): its figures are the luck of a few visitors, not the system. The whole run is
/// still judged; a deterministic pair (same seed, virtual) judges the group as it stands.
@Suite("queuesim compare: too few visitors in a group", .serialized)
struct CompareTinyGroupCommandTests {
    /// 400 at once, about 4 of them `vip` (1 in 100).
    static let scenario = CompareCommandTests.scenario.replacingOccurrences(
        of: "visitors: [ { name: app, weight: 3 }, { name: partner, weight: 1 } ]",
        with: "visitors: [ { name: app, weight: 99 }, { name: vip, weight: 1 } ]")

    static func rows(_ stdout: String, scope: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix(scope + " ") }
    }

    @Test(.timeLimit(.minutes(3)))
    func aTinyGroupIsNotJudged() async throws {
        #expect(Self.scenario.contains("name: vip"))
        let scenario = try TemporaryScenario(Self.scenario)
        let base = try await CompareCommandTests.run(scenario, seed: 1)
        let new = try await CompareCommandTests.run(scenario, seed: 2)
        let junit = RunCommandProcess.reportDirectory() + ".xml"
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try await QueueSimProcess.runOffPool(
            ["compare", base, new, "--rule", "wait.p50: +0%", "--junit", junit], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let vip = Self.rows(result.stdout, scope: "vip")
        #expect(!vip.isEmpty, "\(result.stdout)")
        #expect(vip.allSatisfy { $0.hasSuffix("  too few visitors") }, "\(vip)")
        // The whole run and the large group are judged as before.
        let all = Self.rows(result.stdout, scope: "all")
        #expect(all.contains { $0.hasSuffix("  noise") || $0.hasSuffix("  ok") || $0.hasSuffix("  within noise") })
        #expect(!Self.rows(result.stdout, scope: "app").contains { $0.hasSuffix("too few visitors") })
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<skipped message=\"fewer than 50 visitors in the group: "), "\(xml)")

        // Same seed, virtual: no chance at all, so the group is judged (every difference zero).
        let again = try await CompareCommandTests.run(scenario, seed: 1)
        let same = try await QueueSimProcess.runOffPool(["compare", base, again], limit: .seconds(30))
        #expect(same.status == 0, "\(same.stdout)")
        #expect(!same.stdout.contains("too few visitors"), "\(same.stdout)")
    }
}
