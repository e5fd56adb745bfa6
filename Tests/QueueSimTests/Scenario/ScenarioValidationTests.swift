import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Every validation rule, with the exact position users will see.
@Suite("Scenario validation")
struct ScenarioValidationTests {
    let minimal = ScenarioTestSupport.minimal
    func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        ScenarioTestSupport.problems(yaml, environment: environment)
    }

    @Test func theMinimalScenarioGetsTheContractDefaults() throws {
        let scenario = try ScenarioTestSupport.load(minimal)
        #expect(scenario.name == "test")
        #expect(scenario.seed == 1)
        #expect(scenario.clock == .wall)
        #expect(scenario.target.endpoint == .embedded)
        #expect(scenario.client == ClientSettings())
        #expect(
            scenario.arrivals
                == Arrivals(process: .uniform, phases: [.steady(duration: .seconds(10), rate: 5, rampTo: nil)]))
        #expect(scenario.groups == [VisitorGroup(name: "default")])
        #expect(scenario.waitingRoom == WaitingRoomSettings())
        #expect(scenario.run == RunSettings())
        #expect(scenario.reportsDirectory == "reports/test")
        #expect(scenario.sourcePath == ScenarioTestSupport.path)
        // SHA-256 of the exact bytes.
        #expect(scenario.sourceSHA256.count == 64)
        #expect(try ScenarioTestSupport.load(minimal + "\n").sourceSHA256 != scenario.sourceSHA256)
    }

    @Test func emptyFileAndWrongTopLevel() {
        #expect(
            problems("") == [
                "1:1: the file is empty; expected a mapping with `version: 1`, `target:` and `arrivals:` (see docs/scenarios.md)"
            ])
        #expect(
            problems("- a\n- b\n") == [
                "1:1: expected a mapping at the top of the file (`version: 1`, `target:`, `arrivals:` …), found a list"
            ])
    }

    @Test func missingRequiredKeysAreAllReported() {
        #expect(
            problems("name: x\n") == [
                "1:1: missing the required key `version`; add `version: 1` at the top of the file",
                "1:1: missing the required key `target` (a mapping with at least customerId and waitingRoomId)",
                "1:1: missing the required key `arrivals` (a mapping with `phases:`, e.g. - { duration: 30s, rate: 10 })",
            ])
        #expect(
            problems("version: 1\ntarget:\n  layoutName: x\narrivals:\n  process: poisson\n") == [
                "3:3: missing the required key `target.customerId`",
                "3:3: missing the required key `target.waitingRoomId`",
                "5:3: missing the required key `arrivals.phases` (a list such as - { duration: 30s, rate: 10 })",
            ])
    }

    @Test func versionMustBeOne() {
        #expect(
            problems(minimal.replacingFirst("version: 1", with: "version: 2")) == [
                "1:10: `version: 2` is not supported; this queuesim reads scenario format version 1"
            ])
        #expect(
            problems(minimal.replacingFirst("version: 1", with: "version: one")) == [
                "1:10: `version` must be the number 1, found `one`"
            ])
    }

    @Test func unknownKeysSuggestTheClosestKnownOne() {
        let yaml =
            minimal.replacingFirst("customerId", with: "custmerId")
            + "tresholds: []\nwaitingRoom:\n  outflw: 10\n  zzz: 1\n"
        #expect(
            problems(yaml) == [
                "3:3: unknown key `custmerId` in `target`; did you mean `customerId`?",
                "3:3: missing the required key `target.customerId`",
                "8:1: unknown key `tresholds` in the top level; did you mean `thresholds`?",
                "10:3: unknown key `outflw` in `waitingRoom`; did you mean `outflow`?",
                "11:3: unknown key `zzz` in `waitingRoom`; expected one of: mode, eventStart, outflow, secretKey, tokenValidity, inviteOnly, enqueueKeys, inviteCodes, latency, faults, abandonedTurns, queueNumberValidity, maxRedirectsPerQueueId, uniqueKeys, safetyNet, tls",
            ])
    }

    @Test func wrongTypesSayWhatWasExpected() {
        let yaml = minimal + "seed: -4\nclient:\n  maxRestarts: many\n  sdkVersion: [a]\nrun: fast\n"
        #expect(
            problems(yaml) == [
                "8:7: expected a whole number of 0 or more for `seed`, found `-4`",
                "10:16: expected a whole number for `client.maxRestarts`, found `many`",
                "11:15: expected a text value for `client.sdkVersion`, found a list",
                "12:6: expected a mapping (key: value lines) for `run`, found `fast`",
            ])
    }

    @Test func durationsRatesAndSharesAreChecked() {
        let yaml = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 2 minutes, maxWait: 0s, requestTimeout: -1s }
            arrivals:
              phases:
                - { duration: 10s, rate: -5 }
                - { duration: 10s, rate: 10/day }
            waitingRoom:
              outflow: 0/min
              eventStart: soon
              faults:
                - { from: 1s, endpoint: enqueue, status: 503, rate: 150% }

            """
        #expect(
            problems(yaml) == [
                "3:25: `client.pollInterval` must be a duration such as 250ms, 1.5s, 30s, 5m or 2h (a bare number means seconds), found `2 minutes`",
                "3:45: `client.maxWait` must be longer than 0, found 0s",
                "3:65: `client.requestTimeout` must not be negative, found -1s",
                "6:30: `arrivals.phases[0].rate` must be more than 0, found -5",
                "7:30: `arrivals.phases[1].rate` must be a rate such as 10 (per second) or 600/min, found `10/day`",
                "9:12: `waitingRoom.outflow` must be more than 0, found 0/min",
                "10:15: `waitingRoom.eventStart` must be a duration such as 250ms, 1.5s, 30s, 5m or 2h (a bare number means seconds), found `soon`",
                "12:57: `waitingRoom.faults[0].rate` must be more than 0% and at most 100% (a fraction such as 0.5 or a percentage such as 50%), found 150%",
            ])
    }

    @Test func phasesHaveOneShape() {
        let yaml = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals:
              phases:
                - { duration: 10s }
                - { burst: 0 }
                - { burst: 10, rate: 5 }
                - { pause: 0s }
                - { duration: 5s, rate: 0, rampTo: 0 }
              maxVisitors: 0

            """
        #expect(
            problems(yaml) == [
                "5:7: missing `rate` in arrivals.phases[0]; a phase is { duration: 30s, rate: 10 } (optionally with rampTo: 100), { burst: 500 } or { pause: 30s }",
                "6:16: `arrivals.phases[1].burst` must be from 1 to 100000000 visitors, found 0",
                "7:7: a phase is { duration: 30s, rate: 10 } (optionally with rampTo: 100), { burst: 500 } or { pause: 30s }; this one mixes them",
                "8:16: `arrivals.phases[3].pause` must be longer than 0, found 0s",
                "9:40: `arrivals.phases[4].rampTo` must be more than 0 when `rate` is 0, or the phase brings nobody",
                "10:16: `arrivals.maxVisitors` must be from 1 to 100000000, found 0",
            ])
        #expect(
            problems(minimal.replacingFirst("{ duration: 10s, rate: 5 }", with: "{ pause: 10s }")) == [
                "7:5: these phases bring no visitors; give a phase a rate above 0 or a burst"
            ])
    }

    @Test func choicesListTheirWords() {
        let yaml = minimal + "clock: wal\nvisitors:\n  - { name: a, flow: runn }\n"
        #expect(
            problems(yaml) == [
                "8:8: `clock` must be one of wall, virtual, found `wal`; did you mean `wall`?",
                "10:22: `visitors[0].flow` must be one of run, tryPass, protectedApi, found `runn`; did you mean `run`?",
            ])
    }

    @Test func platformChoosesTheSDKVersionTheSDKReallySends() throws {
        // iOS 3.5.2 still sends iOS-3.5.1 (QueueConsts.h); Android sends "Android-" + its version.
        let plain = try ScenarioTestSupport.load(minimal).client.resolved(for: nil)
        #expect(plain.sdkVersion == "iOS-3.5.1")
        #expect(plain.requestTimeout == .seconds(60) && plain.queuePageRetry == QueuePageRetry.none)
        let android = try ScenarioTestSupport.load(minimal + "client:\n  platform: android\n").client
        #expect(android.platform == .android)
        #expect(android.resolved(for: nil).sdkVersion == "Android-3.0.0")
        #expect(android.resolved(for: nil).requestTimeout == .seconds(10))
        #expect(android.resolved(for: nil).queuePageRetry == .reload)
        let named = try ScenarioTestSupport.load(
            minimal
                + "client: { platform: android, sdkVersion: Android-2.3.0, requestTimeout: 15s, queuePageRetry: poll }\n"
        )
        let resolved = named.client.resolved(for: .ios)
        #expect(resolved.sdkVersion == "Android-2.3.0" && resolved.requestTimeout == .seconds(15))
        #expect(resolved.queuePageRetry == .poll && resolved.platform == .ios)
        #expect(
            problems(minimal + "client:\n  platform: andriod\n  queuePageRetry: pol\n") == [
                "9:13: `client.platform` must be one of ios, android, found `andriod`; did you mean `android`?",
                "10:19: `client.queuePageRetry` must be one of none, reload, poll, found `pol`; did you mean `poll`?",
            ])
    }

    @Test func inviteCodesBelongToAnInviteOnlyRoom() throws {
        let room = try ScenarioTestSupport.load(minimal + "waitingRoom: { inviteOnly: true, inviteCodes: [A, B] }\n")
        #expect(room.waitingRoom?.inviteCodes == ["A", "B"])
        #expect(
            problems(minimal + "waitingRoom: { inviteCodes: [A, \"\"] }\n") == [
                "8:29: `waitingRoom.inviteCodes` only matters in an invite-only room; add `inviteOnly: true`",
                "8:33: `waitingRoom.inviteCodes[1]` must not be empty",
            ])
    }

    @Test func groupsChooseTheirPlatformAndAndroidGroupsCarryInviteCodes() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + """
                visitors:
                  - { name: iphone, weight: 2 }
                  - { name: pixel, platform: android, inviteCode: VIP-1 }
                """)
        #expect(scenario.groups.map(\.platform) == [nil, .android])
        #expect(scenario.groups[1].inviteCode == .literal("VIP-1"))
        #expect(scenario.platforms == [.ios, .android])
        #expect(scenario.longestRequestTimeout == .seconds(60))
        #expect(
            problems(minimal + "visitors:\n  - { name: a, inviteCode: VIP-1 }\n  - { name: b, platform: windows }\n")
                == [
                    "9:28: `visitors[0].inviteCode` is Android's (its SDK sends it as `code=` on the queue URL; iOS has none); give this group `platform: android`",
                    "10:26: `visitors[1].platform` must be one of ios, android, found `windows`",
                ])
    }

    @Test func endpointIsEmbeddedOrABaseURL() throws {
        let base = try ScenarioTestSupport.load(
            minimal.replacingFirst(
                "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: http://127.0.0.1:8080/"))
        #expect(base.target.endpoint == .baseURL(scheme: "http", host: "127.0.0.1", port: 8080))
        #expect(base.waitingRoom == nil)
        let secure = try ScenarioTestSupport.load(
            minimal.replacingFirst(
                "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: https://staging.example"))
        #expect(secure.target.endpoint == .baseURL(scheme: "https", host: "staging.example", port: nil))
        for (endpoint, detail) in [
            ("ftp://host", ", found \"ftp://host\""),
            ("https://host/api", "; a path is not allowed, found \"https://host/api\""),
            ("http://host:99999", "; the port must be a number from 1 to 65535, found \"99999\""),
        ] {
            let yaml = minimal.replacingFirst(
                "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: \(endpoint)")
            #expect(
                problems(yaml) == [
                    "5:13: `target.endpoint` must be `embedded` or a base URL such as https://host or http://127.0.0.1:8080 (scheme, host and port only)\(detail)"
                ])
        }
    }

    @Test func waitingRoomAndVirtualClockNeedTheEmbeddedEndpoint() {
        let yaml =
            minimal.replacingFirst(
                "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: https://acme.example")
            + "clock: virtual\nwaitingRoom:\n  outflow: 600/min\n"
        #expect(
            problems(yaml) == [
                "9:8: `clock: virtual` needs `target.endpoint: embedded` (virtual time cannot drive a real server at https://acme.example)",
                "10:1: `waitingRoom` configures the embedded room, but `target.endpoint` is https://acme.example (set at 5:13); remove `waitingRoom` or use `endpoint: embedded`",
            ])
    }

    @Test func targetValuesMustFitURLs() {
        let yaml = """
            version: 1
            target:
              customerId: acme corp
              waitingRoomId: a/b
              waitingRoomDomain: https://queue.example.com
              protectedApi: shop.example/api
            arrivals: { phases: [ { burst: 1 } ] }

            """
        #expect(
            problems(yaml) == [
                "3:15: `target.customerId` becomes part of a host name ({customerId}.queue-it.net): expected letters, digits and -, found \"acme corp\"",
                "4:18: `target.waitingRoomId` becomes a URL path segment: expected an id without /, ?, # or spaces, found \"a/b\"",
                "5:22: `target.waitingRoomDomain` is a host name only (the SDK always uses https and its own path), such as queue.example.com; found \"https://queue.example.com\"",
                "6:17: `target.protectedApi` must be an http:// or https:// URL such as https://shop.example/api/protected, found \"shop.example/api\"",
            ])
    }

    @Test func groupsNeedNamesPositiveWeightsAndOneCredential() {
        let yaml =
            minimal + """
                visitors:
                  - { name: app, weight: 0 }
                  - { weight: 2 }
                  - { name: app, endpoint: http://x }
                  - { name: all, enqueueKey: k, enqueueToken: t }
                  - { name: api, flow: protectedApi }
                """
        #expect(
            problems(yaml) == [
                "9:26: `visitors[0].weight` must be more than 0 and at most 1000000000, found 0.0",
                "10:5: missing the required key `name` in visitors[1]; every group needs a name for the reports",
                "11:13: a second group named `app` (the first is at 9:13); group names must be unique",
                "11:28: a group cannot override `endpoint`; every group talks to `target.endpoint`",
                "12:13: `visitors[3].name` must be a non-empty name other than `all` (reports use `all` for the total), found \"all\"",
                "12:47: a group gives either `enqueueKey` or `enqueueToken`, not both (the SDK sends one)",
            ])
        #expect(
            problems(minimal + "visitors: []\n") == [
                "8:11: `visitors` needs at least one group, such as - { name: app, weight: 1 }"
            ])
    }

    @Test func protectedApiFlowNeedsAnAPIWhenNotEmbedded() {
        let yaml =
            minimal.replacingFirst(
                "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: https://acme.example")
            + "visitors:\n  - { name: api, flow: protectedApi }\n"
        #expect(
            problems(yaml) == [
                "10:24: `flow: protectedApi` needs a `protectedApi` URL (in `target` or this group) when the endpoint is not embedded"
            ])
    }

    @Test func csvFeedersResolveNextToTheScenarioAndNeedTheirColumn() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + "visitors:\n  - name: invited\n    enqueueKey: { csv: keys.csv, column: key, order: unique }\n")
        #expect(
            scenario.groups[0].enqueueKey
                == .feeder(CSVFeeder(path: ScenarioTestSupport.fixtures + "/keys.csv", column: "key", order: .unique)))
        let yaml =
            minimal + """
                visitors:
                  - { name: a, enqueueKey: { csv: missing.csv, column: key } }
                  - { name: b, enqueueToken: { csv: keys.csv, column: token } }
                  - { name: c, enqueueKey: { csv: header-only.csv, column: key, order: cycle } }
                  - { name: d, enqueueKey: { csv: keys.csv } }
                  - { name: e, enqueueKey: { csv: keys.csv, column: key, order: shuffled } }
                """
        let fixtures = ScenarioTestSupport.fixtures
        #expect(
            problems(yaml) == [
                "9:35: `visitors[0].enqueueKey.csv`: cannot read \(fixtures)/missing.csv: no such file",
                "10:55: `visitors[1].enqueueToken.column`: \(fixtures)/keys.csv:1: no header row with a column named `token` (the first line has 3 columns; values are not shown, they may be secrets)",
                "11:35: `visitors[2].enqueueKey`: header-only.csv has a header but no rows",
                "12:28: `visitors[3].enqueueKey` as a CSV feeder needs both `csv: FILE` and `column: NAME`",
                "13:65: `visitors[4].enqueueKey.order` must be one of unique, sequence, random, cycle, found `shuffled`",
            ])
    }

    @Test func nameSeedRunAndReports() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + "name: spring\nseed: 42\nrun: { concurrency: 50, duration: 2m }\nreports: { dir: out/spring }\n")
        #expect(scenario.name == "spring")
        #expect(scenario.seed == 42)
        #expect(scenario.run == RunSettings(concurrency: 50, duration: .seconds(120)))
        #expect(scenario.reportsDirectory == "out/spring")
        #expect(
            problems(minimal + "name: a/b\nrun: { concurrency: 0 }\n") == [
                "8:7: `name` names the report folder: expected a non-empty name without `/`, found \"a/b\"",
                "9:21: `run.concurrency` must be from 1 to 10000000, found 0",
            ])
    }

    @Test func environmentProblemsComeWithTheirPosition() {
        #expect(
            problems(minimal + "waitingRoom:\n  secretKey: ${QUEUESIM_TEST_UNSET}\n") == [
                "9:14: the environment variable QUEUESIM_TEST_UNSET is not set; set it or give a default with ${QUEUESIM_TEST_UNSET:-default}"
            ])
    }

    @Test func groupOverridesAndEnqueueURLs() throws {
        let yaml =
            minimal + """
                visitors:
                  - { name: app }
                  - { name: partner, waitingRoomDomain: q.partner.example, queuePathPrefix: " /queue/ ", enqueueToken: secret }
                  - { name: other, waitingRoomId: other-room, queuePathPrefix: ignored }
                """
        let scenario = try ScenarioTestSupport.load(yaml)
        let urls = scenario.groups.map { scenario.target.applying($0.overrides).enqueueURLDescription }
        #expect(
            urls == [
                "https://acme.queue-it.net/api/mobileapp/queue/acme/launch/enqueue",
                "https://q.partner.example/queue/api/mobileapp/queue/acme/launch/enqueue",
                "https://acme.queue-it.net/api/mobileapp/queue/acme/other-room/enqueue",
            ])
        #expect(scenario.groups[1].enqueueToken == .literal("secret"))
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}

@Suite("Scenario validation: empty values")
struct ScenarioEmptyValueTests {
    @Test func requiredKeysWrittenWithoutAValueAreReportedAtTheKey() {
        #expect(
            ScenarioTestSupport.problems("version:\ntarget:\narrivals:\n  phases:\nvisitors:\n") == [
                "1:1: `version` is empty; expected `version: 1`",
                "2:1: `target` is empty; expected a mapping with at least customerId and waitingRoomId",
                "4:3: `arrivals.phases` is empty; expected a list such as - { duration: 30s, rate: 10 }",
                "5:1: `visitors` is empty; expected a list of groups such as - { name: app, weight: 1 }, or no `visitors:` at all",
            ])
        #expect(
            ScenarioTestSupport.problems(
                ScenarioTestSupport.minimal.replacingFirst(
                    "arrivals:\n  phases:\n    - { duration: 10s, rate: 5 }", with: "arrivals:")) == [
                    "5:1: `arrivals` is empty; expected a mapping with `phases:`, e.g. - { duration: 30s, rate: 10 }"
                ])
    }
}

@Suite("Scenario validation: misplaced keys")
struct ScenarioMisplacedKeyTests {
    @Test func aKeyInTheWrongSectionIsSentWhereItBelongs() {
        let yaml = ScenarioTestSupport.minimal + "outflow: 600/min\nclient:\n  concurrency: 5\n"
        #expect(
            ScenarioTestSupport.problems(yaml) == [
                "8:1: unknown key `outflow` in the top level; `outflow` belongs in `waitingRoom`",
                "10:3: unknown key `concurrency` in `client`; `concurrency` belongs in `run`",
            ])
    }

    @Test func libyamlIndentationErrorsGetAHint() {
        #expect(
            ScenarioTestSupport.problems("version: 1\ntarget:\n  customerId: acme\n   waitingRoomId: x\n") == [
                "4:17: mapping values are not allowed in this context; check this line's indentation, and quote values that contain `: `"
            ])
    }
}
