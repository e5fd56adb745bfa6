import QueueClientCore
import Testing

@testable import QueueSim

/// `platform: { ios: 60%, android: 40% }` in a group (issue 29, item 6): read, refused at its
/// place when wrong, and drawn per visitor from the seed.
@Suite("platform mixes")
struct PlatformMixTests {
    static func scenario(platform: String, extra: String = "") -> String {
        ScenarioTestSupport.minimal + "visitors:\n  - name: app\n    platform: \(platform)\n" + extra
    }

    @Test func aMixIsReadWithItsShares() throws {
        let scenario = try ScenarioTestSupport.load(Self.scenario(platform: "{ ios: 60%, android: 0.4 }"))
        let group = scenario.groups[0]
        #expect(group.platform == nil)
        #expect(group.platformMix == PlatformMix(shares: [.init(.ios, 0.6), .init(.android, 0.4)]))
        #expect(group.platforms(client: ClientSettings()).description == "ios 60%, android 40%")
        #expect(scenario.platforms == [.ios, .android])
        #expect(scenario.mixesPlatforms)
    }

    @Test func aMixOfOnePlatformIsThatPlatform() throws {
        for written in ["{ android: 100% }", "{ ios: 0%, android: 100% }", "android"] {
            let group = try ScenarioTestSupport.load(Self.scenario(platform: written)).groups[0]
            #expect(group.platform == .android, "\(written)")
            #expect(group.platformMix == nil, "\(written)")
        }
    }

    @Test func badSharesAreRefusedAtTheirPlace() {
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "{ ios: 60%, android: 30% }")) == [
                "10:15: the shares of `visitors[0].platform` add up to 90% (ios 60%, android 30%); they must add up to 100%"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "{ ios: 60%, andriod: 40% }")) == [
                "10:27: unknown platform `andriod` in `visitors[0].platform`; did you mean `android`?"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "{ ios: 50%, windows: 50% }")) == [
                "10:27: unknown platform `windows` in `visitors[0].platform`; expected ios or android"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "{ ios: most, android: 40% }")) == [
                "10:22: `visitors[0].platform.ios` must be a share such as 50% or 0.5, found `most`"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "[ios, android]")) == [
                "10:15: `visitors[0].platform` must be ios, android, or a mix such as { ios: 60%, android: 40% }, found a list"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(platform: "andriod")) == [
                "10:15: `visitors[0].platform` must be one of ios, android, found `andriod`; did you mean `android`?"
            ])
    }

    @Test func anInviteCodeNeedsEveryVisitorOnAndroid() {
        #expect(
            ScenarioTestSupport.problems(
                Self.scenario(platform: "{ ios: 50%, android: 50% }", extra: "    inviteCode: SPRING\n")) == [
                    "11:17: `visitors[0].inviteCode` is Android's (its SDK sends it as `code=` on the queue URL; iOS has none); give this group `platform: android`"
                ])
    }

    @Test func aMixInClientIsEveryGroupsThatNamesNone() throws {
        let client = ScenarioTestSupport.minimal + "client:\n  platform: { ios: 50%, android: 50% }\n"
        let scenario = try ScenarioTestSupport.load(
            client + "visitors:\n  - { name: app }\n  - { name: web, platform: ios }\n")
        #expect(
            scenario.groups.map { $0.platforms(client: scenario.client).description } == [
                "ios 50%, android 50%", "ios",
            ])
        #expect(scenario.mixesPlatforms)
        #expect(
            ScenarioTestSupport.problems(
                ScenarioTestSupport.minimal + "client:\n  platform: { ios: 50%, android: 40% }\n")
                == [
                    "9:13: the shares of `client.platform` add up to 90% (ios 50%, android 40%); they must add up to 100%"
                ])
        #expect(
            ScenarioTestSupport.problems(client + "visitors:\n  - { name: app, inviteCode: SPRING }\n") == [
                "11:30: `visitors[0].inviteCode` is Android's (its SDK sends it as `code=` on the queue URL; iOS has none); give this group `platform: android`"
            ])
    }

    @Test func eachVisitorsPlatformIsDrawnFromTheSeedByTheShares() throws {
        let scenario = try ScenarioTestSupport.load(
            ScenarioTestSupport.minimal.replacingOccurrences(of: "rate: 5", with: "rate: 1000")
                + "visitors:\n  - name: app\n    platform: { ios: 60%, android: 40% }\n  - name: web\n")
        func plan() throws -> [PlannedVisitor] {
            var plan = try VisitorPlan(scenario: scenario, loadColumn: { _ in [] })
            var visitors: [PlannedVisitor] = []
            while let visitor = try plan.next() { visitors.append(visitor) }
            return visitors
        }
        let visitors = try plan()
        #expect(try plan() == visitors)
        let app = visitors.filter { $0.groupIndex == 0 }
        let android = app.filter { $0.platformIndex == 1 }
        let share = Double(android.count) / Double(app.count)
        #expect(abs(share - 0.4) < 0.03, "\(android.count) of \(app.count)")
        // A group of one platform draws nothing: all its visitors have the first configuration.
        #expect(visitors.filter { $0.groupIndex == 1 }.allSatisfy { $0.platformIndex == 0 })
        // Android visitors carry ANDROID_ID-shaped ids (16 hex digits), iOS ones UUIDs.
        #expect(android.allSatisfy { $0.userId.count == 16 })
        #expect(app.filter { $0.platformIndex == 0 }.allSatisfy { $0.userId.count == 36 })
    }

    @Test func eachVisitorRunsWithItsOwnPlatformsConfiguration() throws {
        let folder = try RunFixture.makeFolder()
        let run = try RunFixture.prepare(
            Self.scenario(platform: "{ ios: 50%, android: 50% }"), folder: folder,
            options: RunOptions(clock: .virtual))
        var plan = try run.makePlan()
        var seen: Set<ClientPlatform> = []
        while let visitor = try plan.next() {
            let configuration = run.visitorConfiguration(for: visitor)
            let platform = run.platform(ofVisitor: visitor.index, group: visitor.groupIndex)
            #expect(configuration.group.platform == platform)
            #expect(configuration.group.sdkVersion == platform.defaultSDKVersion)
            #expect(configuration.group.requestTimeout == platform.defaultRequestTimeout)
            seen.insert(platform)
        }
        #expect(seen == [.ios, .android])
    }
}
