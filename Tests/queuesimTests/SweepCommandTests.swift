import Foundation
import Testing

/// `queuesim sweep` as users call it: the answer, the files, determinism, exit codes, errors
/// at their positions, SIGINT.
@Suite("queuesim sweep", .serialized, .timeLimit(.minutes(5)))
struct SweepCommandTests {
    /// A burst of 2,000 with a 5 s poll: a point runs in a fraction of a second.
    static func burst(_ sweep: String, visitors: Int = 2000) -> String {
        """
        version: 1
        name: burst
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 45m }
        arrivals: { phases: [ { burst: \(visitors) } ] }
        waitingRoom: { mode: queue, outflow: 100/min }
        \(sweep)
        """
    }

    static func json(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/sweep.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("what-outflow.yaml answers within one grid step of the fluid model")
    func whatOutflowMatchesTheFluidModel() async throws {
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", "scenarios/what-outflow.yaml", "--out", out, "--no-progress"], limit: .seconds(240))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("lowest outflow meeting every goal in all 3 seeds"), "\(result.stdout)")
        for file in ["sweep.csv", "sweep.json", "sweep.html"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file) missing")
        }
        // Fluid: wait.p95 < 10m for a burst of N needs r ≥ 0.95·N / 10 min; the sweep must
        // decide for the largest crowd (scale 1.5: 1,500 visitors): 142.5/min.
        let answer = try #require(try Self.json(out)["answer"] as? [String: String])
        let outflow = try #require(answer["waitingRoom.outflow"])
        #expect(answer["arrivals.scale"] == "1.5")
        let perMinute = try #require(Double(outflow.replacingOccurrences(of: "/min", with: "")))
        let fluid = 0.95 * 1_500 / 10
        let step = 25.0
        #expect(perMinute >= fluid && perMinute <= fluid + step, "answer \(outflow), fluid \(fluid)/min")
        let page = try String(contentsOfFile: out + "/sweep.html", encoding: .utf8)
        #expect(
            page.contains("<svg") && page.contains("fluid model")
                && page.contains(
                    result.stdout.trimmingCharacters(in: .newlines).replacingOccurrences(of: "&", with: "&amp;")
                        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;"))
        )
    }

    @Test("the same file and seeds give byte-identical sweep.csv, whatever --jobs is")
    func deterministic() async throws {
        let scenario = try TemporaryScenario(
            Self.burst(
                """
                sweep:
                  vary: { waitingRoom.outflow: [200/min, 300/min, 400/min] }
                  seeds: 2
                  goals: [ "wait.p95 < 6m" ]
                  minimize: waitingRoom.outflow
                """))
        var files: [String] = []
        var jsons: [String] = []
        for jobs in ["1", "2", "2"] {
            let out = RunCommandProcess.reportDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try await QueueSimProcess.runOffPool(
                ["sweep", scenario.path, "--out", out, "--jobs", jobs, "--no-progress"], limit: .seconds(120))
            #expect(result.status == 0, "\(result.stderr)")
            files.append(try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8))
            jsons.append(try String(contentsOfFile: out + "/sweep.json", encoding: .utf8))
            #expect(try Self.json(out)["answer"] as? [String: String] == ["waitingRoom.outflow": "400/min"])
        }
        #expect(files[0] == files[1] && files[1] == files[2])
        #expect(jsons[0] == jsons[1] && jsons[1] == jsons[2])
        let lines = files[0].split(separator: "\n")
        // A header, 3 points × 2 seeds, then 3 point rows.
        #expect(lines.count == 1 + 6 + 3)
        #expect(lines[0].hasPrefix("row,point,waitingRoom.outflow,seed,seeds,meets_goals,visitors,wait_p95_ms,"))
        #expect(lines[1].hasPrefix("seed,1,200/min,3,,no,2000,"))
        #expect(lines[7].hasPrefix("point,1,200/min,,2,no,2000,"))
    }

    @Test("--vary, --goal and --maximize on the command line; no point meeting the goals is exit 1")
    func commandLineGridAndExitOne() async throws {
        let scenario = try TemporaryScenario(Self.burst(""))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary",
                "waitingRoom.outflow=100/min:300/min:100/min",
                "--goal", "wait.p95 < 1m", "--minimize", "waitingRoom.outflow",
            ], limit: .seconds(120))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stdout.hasPrefix("no outflow tried (100/min to 300/min) meets every goal in its one seed"),
            "\(result.stdout)")
        #expect(try Self.json(out)["answer"] is NSNull)
        #expect(try Self.json(out)["exit_code"] as? Int == 1)
    }

    /// Visitors who give up and go shopping: `abandoned` and the shop's peak are sweep columns,
    /// and the answer sentence names the shop's peak (issue 30: "how many requests a second the
    /// shop behind the queue must take").
    @Test("abandoned shares and the shop's peak behind the queue are in sweep.csv and the answer")
    func behaviourColumns() async throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: shop
            seed: 4
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 2s, maxWait: 30m }
            arrivals: { phases: [ { burst: 600 } ] }
            visitors:
              - name: app
                patience: { fixed: 3m }
                afterPass: { calls: 2, thinkTime: { fixed: 5s } }
            waitingRoom: { mode: queue, outflow: 100/min }
            sweep:
              vary: { waitingRoom.outflow: [100/min, 300/min] }
              goals: [ abandoned < 10% ]
              minimize: waitingRoom.outflow
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--no-progress"], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        // 600 visitors, 3 minutes of patience: at 100/min 300 pass and 300 give up; at 300/min all pass.
        #expect(
            result.stdout.hasPrefix("lowest outflow meeting every goal in its one seed: 300/min"), "\(result.stdout)")
        #expect(result.stdout.contains("shop peak "), "\(result.stdout)")
        let text = try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8)
        let lines = text.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(lines.first)
        let abandoned = try #require(header.firstIndex(of: "abandoned_share"))
        let shop = try #require(header.firstIndex(of: "shop_peak_rps"))
        let seedRows = lines.dropFirst().filter { $0.first == "seed" }
        #expect(seedRows.count == 2)
        for row in seedRows {
            #expect(Double(row[shop]).map { $0 > 0 } == true, "\(row)")
        }
        let shares = seedRows.compactMap { Double($0[abandoned]) }
        #expect(shares.contains { $0 > 0.4 && $0 < 0.6 } && shares.contains(0), "\(shares)")
    }

    /// Exponential patience in a burst: sweep.csv, sweep.json and sweep.html carry the fluid
    /// model's share who give up beside the simulated one. The tolerance, 0.04 of the visitors:
    /// the passes are a sum of independent draws (a standard deviation near 1 % of 2,000), and
    /// the room learns that a visitor left only once it has been silent at its turn, so some
    /// turns are wasted even when skipped (about 45 s / θ of them, 2.5 % of the passes).
    @Test("patience: the fluid model's abandoned share beside the simulated one")
    func fluidAbandonedShare() async throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: patience
            seed: 8
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 5s, maxWait: 10h }
            arrivals: { phases: [ { burst: 2000 } ] }
            visitors: [ { name: app, patience: { mean: 30m } } ]
            waitingRoom: { mode: queue, outflow: 60/min, abandonedTurns: skipped }
            sweep:
              vary: { waitingRoom.outflow: [60/min, 90/min] }
              seeds: 2
              goals: [ abandoned < 30% ]
              minimize: waitingRoom.outflow
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--no-progress"], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8)
        let lines = text.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(lines.first)
        #expect(header.suffix(2) == ["fluid_wait_p95_ms", "fluid_abandoned_share"])
        let simulated = try #require(header.firstIndex(of: "abandoned_share"))
        let pointRows = lines.dropFirst().filter { $0.first == "point" }
        #expect(pointRows.count == 2)
        for (row, perSecond) in zip(pointRows, [1.0, 1.5]) {
            let rTheta = perSecond * 1_800
            let fluid = 1 - rTheta * log(1 + 2_000 / rTheta) / 2_000
            let written = try #require(Double(row[header.count - 1]), "\(row)")
            #expect(abs(written - fluid) < 0.001, "\(row)")
            let mean = try #require(Double(row[simulated]), "\(row)")
            #expect(abs(mean - fluid) < 0.04, "simulated \(mean), fluid \(fluid)")
            // Visitors who give up get no fluid wait: the model's waits assume everyone stays.
            #expect(row[header.count - 2] == "")
        }
        let points = try #require(try Self.json(out)["points"] as? [[String: Any]])
        #expect(points.allSatisfy { ($0["fluid_abandoned_share"] as? Double).map { $0 > 0.1 && $0 < 0.4 } == true })
        let page = try String(contentsOfFile: out + "/sweep.html", encoding: .utf8)
        #expect(page.contains("<th>fluid abandoned</th>"))
        let abandonedChart = try #require(
            page.range(of: "<figcaption>abandoned</figcaption>").map { page[$0.lowerBound...] })
        let chartEnd = try #require(abandonedChart.range(of: "</svg>"))
        #expect(abandonedChart[..<chartEnd.lowerBound].contains("<title>fluid model</title>"))
    }

    @Test("--keep-points keeps each run's report folder; --jobs is lowered to fit --max-memory")
    func keepPointsAndMemory() async throws {
        let scenario = try TemporaryScenario(
            Self.burst("sweep: { vary: { waitingRoom.outflow: [200/min, 400/min] }, goals: [ \"wait.p95 < 10h\" ] }"))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        // One run of a burst of 2,000 lean iOS visitors is estimated at 64 MiB + 2,000 × 1,088
        // bytes (starting together, they count at the full virtual figure: docs/sweep.md,
        // "Memory"), about 66.1 MiB; two at once share the 64 MiB base, 68.2 MiB: 67 MiB holds
        // one at a time.
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--jobs", "2", "--keep-points", "--max-memory", "67MiB",
                "--no-progress",
            ],
            limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("running 1 at a time instead of 2"), "\(result.stderr)")
        for point in ["001-seed-1", "002-seed-1"] {
            for file in ["report.html", "visitors.csv", "run.json"] {
                #expect(FileManager.default.fileExists(atPath: "\(out)/points/\(point)/\(file)"), "\(point)/\(file)")
            }
        }
        // A budget below one run is refused before anything runs.
        let refused = try await QueueSimProcess.runOffPool([
            "sweep", scenario.path, "--out", out + "-x", "--max-memory", "60MiB",
        ])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "-x"))
    }

    @Test("a bad value in the sweep block: exit 2 at its position, nothing written")
    func badValueInTheBlock() async throws {
        let scenario = try TemporaryScenario(
            Self.burst(
                """
                sweep:
                  vary:
                    waitingRoom.outflow: [100/min, 5m]
                """))
        let out = RunCommandProcess.reportDirectory()
        let result = try await QueueSimProcess.runOffPool(["sweep", scenario.path, "--out", out])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("\(scenario.path):10:26: `sweep.vary.waitingRoom.outflow` value `5m`"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // validate loads each value as the sweep does.
        let validate = try await QueueSimProcess.runOffPool(["validate", scenario.path])
        #expect(validate.status == 2)
        #expect(validate.stderr.contains("\(scenario.path):10:26: `sweep.vary.waitingRoom.outflow` value `5m`"))
    }

    @Test("shape errors in the block are positioned, for validate as for sweep")
    func shapeErrors() async throws {
        let scenario = try TemporaryScenario(
            Self.burst(
                """
                sweep:
                  vary:
                    waitingRoom.outflow: { from: 100/min, to: 50/min, step: 10/min }
                  seeds: 0
                  goals: [ "wait.p96x < 1m" ]
                  minimise: waitingRoom.outflow
                """))
        for command in ["sweep", "validate"] {
            let result = try await QueueSimProcess.runOffPool([command, scenario.path])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    ":10:26: `sweep.vary.waitingRoom.outflow`: `to` (50/min) is below `from` (100/min)"),
                "\(result.stderr)")
            #expect(result.stderr.contains(":11:10: `sweep.seeds`"), "\(result.stderr)")
            #expect(result.stderr.contains(":12:13: unknown metric `wait.p96x`"), "\(result.stderr)")
            #expect(
                result.stderr.contains(":13:3: unknown key `sweep.minimise`; did you mean `minimize`?"),
                "\(result.stderr)")
        }
        // `run` reads the block too (an invalid file is invalid), and otherwise ignores it.
        let valid = try TemporaryScenario(Self.burst("sweep: { vary: { waitingRoom.outflow: [1/s] } }", visitors: 5))
        let run = try await QueueSimProcess.runOffPool(
            ["run", valid.path, "--clock", "virtual", "--out", RunCommandProcess.reportDirectory(), "--quiet"],
            limit: .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test("command-line mistakes: exit 2 with the option named")
    func commandLineMistakes() async throws {
        let scenario = try TemporaryScenario(Self.burst(""))
        let cases: [([String], String)] = [
            (["--vary", "waitingRoom.outflow=1:2"], "--vary waitingRoom.outflow=1:2: expected KEY=FROM:TO:STEP"),
            (["--vary", "waitingRoom.outflow=fast"], "is not a number, a duration"),
            (
                ["--vary", "waitingRoom.outflow=1/s", "--minimize", "arrivals.scale"],
                "`minimize` names `arrivals.scale`, which the sweep does not vary"
            ),
            (["--goal", "wait < 1m"], "--goal 'wait < 1m'"),
            (["--vary", "waitingRoom.nope=1,2"], "--vary waitingRoom.nope=1"),
            ([], "nothing to vary"),
            (["--vary", "seed=1,2"], "--vary seed: a sweep sets each run's seed itself"),
        ]
        for (arguments, message) in cases {
            let result = try await QueueSimProcess.runOffPool(["sweep", scenario.path] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("SIGINT keeps the finished runs, writes the files and exits 130")
    func interrupted() async throws {
        let scenario = try TemporaryScenario(
            Self.burst(
                "sweep: { vary: { waitingRoom.outflow: { from: 50/min, to: 2000/min, step: 50/min } }, seeds: 3, goals: [ \"wait.p95 < 10h\" ] }",
                visitors: 20_000))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--jobs", "1", "--no-progress"], limit: .seconds(60),
            interruptAfter: .seconds(4))
        #expect(result.status == 130, "\(result.stderr)")
        let json = try Self.json(out)
        #expect(json["complete"] as? Bool == false)
        let finished = try #require(json["finished_runs"] as? Int)
        #expect(finished < 120)
        let csv = try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8)
        #expect(csv.split(separator: "\n").filter { $0.hasPrefix("seed,") }.count == finished)
        #expect(result.stderr.contains("stopped: \(finished) of 120 runs finished"), "\(result.stderr)")
    }
}
