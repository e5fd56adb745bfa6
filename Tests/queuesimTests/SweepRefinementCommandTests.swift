import Foundation
import Testing

/// `queuesim sweep`'s bracketed answer as users see it (issue 52, item 3): the grid's answer
/// refined by bisection to `--precision`, the margin and the fluid model's value, in the
/// sentence and in sweep.json.
@Suite("queuesim sweep: the bracketed answer", .serialized, .timeLimit(.minutes(5)))
struct SweepRefinementCommandTests {
    /// A burst at the event start, `wait.p95 < 10m`: the fluid answer is 0.95·N / 10 min.
    static func burst(visitors: Int) -> String {
        """
        version: 1
        name: burst
        seed: 5
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 45m }
        arrivals: { phases: [ { burst: \(visitors) } ] }
        waitingRoom: { mode: queue, outflow: 100/min }
        """
    }

    static func json(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/sweep.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func perMinute(_ text: String) throws -> Double {
        try #require(Double(text.replacingOccurrences(of: "/min", with: "")), "\(text)")
    }

    /// The issue's case at a tenth of the crowd (the same shape: 10,000 at once, the fluid
    /// answer 950/min, a tenth of the precision): run by hand at 100,000 and 100/min too.
    @Test("a burst's answer is a bracket within --precision around the fluid answer, with the margin")
    func burstBracketsTheFluidAnswer() async throws {
        let scenario = try TemporaryScenario(Self.burst(visitors: 10_000))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--seeds", "2",
                "--vary", "waitingRoom.outflow=800/min:1200/min:100/min", "--goal", "wait.p95 < 10m",
                "--minimize", "waitingRoom.outflow", "--precision", "10/min",
            ], limit: .seconds(240))
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(out)
        // The grid's own answer stays in `answer`: the first grid value above 950/min.
        #expect(json["answer"] as? [String: String] == ["waitingRoom.outflow": "1000/min"])
        let bracket = try #require(
            (json["answer_bracket"] as? [String: [String]])?["waitingRoom.outflow"], "\(json["answer_bracket"] ?? "")")
        let (failing, passing) = (try Self.perMinute(bracket[0]), try Self.perMinute(bracket[1]))
        #expect(passing > failing && passing - failing <= 10, "\(bracket)")
        // The fluid answer ±1 % meets the bracket.
        let fluid = 0.95 * 10_000 / 10
        #expect(failing <= fluid * 1.01 && passing >= fluid * 0.99, "\(bracket) against \(fluid)/min")
        #expect(json["answer_fluid"] as? [String: String] == ["waitingRoom.outflow": "950/min"])
        // The margin: the crowd at which a goal first failed, a little above 1 (the answer sits
        // within 10/min of where the goal starts to hold).
        let margin = try #require(json["answer_margin"] as? Double, "\(json["answer_margin"] ?? "")")
        #expect(margin > 1 && margin < 1.05, "\(margin)")
        let probes = try #require(json["answer_probes"] as? [[String: Any]])
        // log2(100 / 10) rounded up: 4 probes, each with both seeds.
        #expect(probes.count <= 5 && probes.allSatisfy { $0["runs"] as? Int == 2 }, "\(probes)")
        let sentence = result.stdout.trimmingCharacters(in: .newlines)
        #expect(
            sentence.hasPrefix("lowest outflow meeting every goal in all 2 seeds: 1,000/min")
                && sentence.contains("; refined by bisection to \(SweepBracketText.text(bracket)) (within 10/min; at ")
                && sentence.contains("fluid model 950/min for wait.p95 < 10m")
                && sentence.contains("larger"), "\(sentence)")
        #expect(json["answer_sentence"] as? String == sentence)
    }

    /// A burst's seeds change only platform draws: the wait p95 is the same in each, and the
    /// sentence says so instead of an interval from a figure to itself.
    @Test("an interval of zero width reads 'seeds do not vary this figure'")
    func zeroWidthInterval() async throws {
        let scenario = try TemporaryScenario(Self.burst(visitors: 1_000))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--seeds", "3",
                "--vary", "waitingRoom.outflow=50/min,100/min,150/min", "--goal", "wait.p95 < 10m",
                "--minimize", "waitingRoom.outflow",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let sentence = result.stdout
        let json = try Self.json(out)
        let point = try #require(json["answer_point"] as? Int)
        let points = try #require(json["points"] as? [[String: Any]])
        let figure = try #require((points[point - 1]["figures"] as? [String: Any])?["wait_p95_ms"] as? [String: Any])
        let bySeed = try #require(figure["by_seed"] as? [Double])
        #expect(bySeed.count == 3 && Set(bySeed).count == 1, "\(bySeed)")
        #expect(sentence.contains("seeds do not vary this figure"), "\(sentence)")
        for match in sentence.matches(of: #/(\d+m\d+s)–(\d+m\d+s)/#) {
            #expect(match.1 != match.2, "\(sentence)")
        }
    }

    @Test("--precision that does not suit the key, or without an objective, is exit 2 before anything runs")
    func badPrecision() async throws {
        let scenario = try TemporaryScenario(Self.burst(visitors: 100))
        for (arguments, words) in [
            (["--minimize", "waitingRoom.outflow", "--precision", "5s"], "is not in the key's kind of unit"),
            (["--minimize", "waitingRoom.outflow", "--precision", "0%"], "a percentage must be more than 0%"),
            (["--precision", "10/min"], "there is no answer to bracket"),
        ] {
            let out = RunCommandProcess.reportDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try await QueueSimProcess.runOffPool(
                [
                    "sweep", scenario.path, "--out", out, "--no-progress", "--vary",
                    "waitingRoom.outflow=50/min,100/min",
                    "--goal", "wait.p95 < 10m",
                ] + arguments, limit: .seconds(60))
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out + "/sweep.json"))
        }
    }
}

/// `9,500–9,563/min` from sweep.json's `["9500/min", "9563/min"]`, as the sentence writes it.
enum SweepBracketText {
    static func text(_ bracket: [String]) -> String {
        let numbers = bracket.compactMap { Double($0.replacingOccurrences(of: "/min", with: "")) }.sorted()
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        formatter.maximumFractionDigits = 6
        let words = numbers.map { formatter.string(from: NSNumber(value: $0)) ?? "" }
        return words.joined(separator: "–") + "/min"
    }
}
