import Testing

@testable import QueueSim

/// Each call has its own stack's timeout (docs/client-core.md): Android's WebView page loads
/// wait for a slow page (Chromium has no read timeout), its enqueue call keeps OkHttp's 10 s,
/// iOS has `NSURLRequest`'s 60 s everywhere.
@Suite("Platform timeouts on the virtual clock")
struct PlatformTimeoutTests {
    static func scenario(platform: String, latency: String, faults: String = "", client: String = "") -> String {
        """
        version: 1
        name: slow-pages
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        client: { platform: \(platform), pollInterval: 2s, maxWait: 10m\(client) }
        arrivals:
          phases: [ { burst: 12 } ]
        visitors: [ { name: app } ]
        waitingRoom:
          outflow: 600/min
          latency: { \(latency), jitter: 0ms }
        \(faults)
        """
    }

    @Test("a 15 s queue page passes Android and iOS visitors alike")
    func slowQueuePagePasses() throws {
        for platform in ["android", "ios"] {
            let run = try VirtualRun.run(
                Self.scenario(platform: platform, latency: "queuePage: 15s"), label: "slow-page-\(platform)")
            let rows = try VirtualRun.visitors(run.directory)
            #expect(rows.count == 12)
            #expect(rows.allSatisfy { $0.outcome == "passed" }, "\(platform): \(rows.map(\.outcome))")
            // The first load alone took 15 s: no visitor waited less.
            #expect(rows.allSatisfy { $0.waitMs >= 15_000 })
        }
    }

    @Test("Android's enqueue call keeps OkHttp's 10 s: an 11 s enqueue is retried to unavailable")
    func slowEnqueueTimesOutOnAndroid() throws {
        let run = try VirtualRun.run(
            Self.scenario(platform: "android", latency: "enqueue: 11s"), label: "slow-enqueue-android")
        let rows = try VirtualRun.visitors(run.directory)
        #expect(rows.allSatisfy { $0.outcome == "unavailable" })
        // Five attempts of 10 s each and 1 + 2 + 4 + 8 s between them.
        #expect(rows.allSatisfy { $0.cells["total_ms"] == "65000" }, "\(rows.map { $0.cells["total_ms"] ?? "" })")
        let ios = try VirtualRun.run(Self.scenario(platform: "ios", latency: "enqueue: 11s"), label: "slow-enqueue-ios")
        #expect(try VirtualRun.visitors(ios.directory).allSatisfy { $0.outcome == "passed" })
    }

    @Test("a queue page that never answers keeps an Android visitor waiting until maxWait: queued, not error")
    func silentQueuePageIsWaitedOut() throws {
        let faults = "  faults: [ { endpoint: queuePage, timeout: true } ]"
        let android = try VirtualRun.run(
            Self.scenario(platform: "android", latency: "queuePage: 10ms", faults: faults), label: "silent-android")
        let rows = try VirtualRun.visitors(android.directory)
        #expect(rows.allSatisfy { $0.outcome == "queued" && $0.polls == 1 }, "\(rows.map(\.cells))")
        #expect(rows.allSatisfy { $0.waitMs == 600_000 })
        // iOS's WKWebView gives up after 60 s and does not reload.
        let ios = try VirtualRun.run(
            Self.scenario(platform: "ios", latency: "queuePage: 10ms", faults: faults), label: "silent-ios")
        #expect(try VirtualRun.visitors(ios.directory).allSatisfy { $0.outcome == "error" })
    }

    @Test("client.requestTimeout replaces every platform timeout, page loads included")
    func requestTimeoutReplacesAll() throws {
        let run = try VirtualRun.run(
            Self.scenario(platform: "android", latency: "queuePage: 15s", client: ", requestTimeout: 12s"),
            label: "slow-page-override")
        let rows = try VirtualRun.visitors(run.directory)
        // Seven loads of the queue URL time out after 12 s each (the first and six reloads).
        #expect(rows.allSatisfy { $0.outcome == "error" && $0.polls == 7 }, "\(rows.map(\.cells))")
    }
}
