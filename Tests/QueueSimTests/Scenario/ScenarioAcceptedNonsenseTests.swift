import Foundation
import Testing

@testable import QueueSim

/// Scenarios that validation used to accept although they silently broke the run (issue 12,
/// "no accepted nonsense"): each is now refused at its position, or made safe.
@Suite("scenario: no accepted nonsense")
struct ScenarioAcceptedNonsenseTests {
    let minimal = ScenarioTestSupport.minimal

    func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        ScenarioTestSupport.problems(yaml, environment: environment)
    }

    static let tokenBreakingIds: [(id: String, written: String, named: String)] = [
        ("spring_launch", "spring_launch", "`_`"),
        ("spring~launch", "spring~launch", "`~`"),
        ("a&b", "a&b", "`&`"),
        ("a=b", "\"a=b\"", "`=`"),
        ("a%41", "a%41", "`%`"),
        ("a+b", "a+b", "`+`"),
        ("a;b", "a;b", "`;`"),
        ("a.b", "a.b", "`.`"),
        ("café", "café", "U+00E9"),
        // Messages show control and bidi characters escaped, so they stay on one line and
        // cannot reorder the text around them.
        ("launch\\u{202E}", "\"launch\\u202E\"", "U+202E"),
        ("tab\\there", "\"tab\\there\"", "U+0009"),
    ]

    @Test(
        "an event id the KnownUser token or cookie cannot carry is refused at its position",
        arguments: tokenBreakingIds.indices)
    func tokenBreakingEventIds(index: Int) {
        let (id, written, named) = Self.tokenBreakingIds[index]
        let yaml = minimal.replacingOccurrences(of: "waitingRoomId: launch", with: "waitingRoomId: \(written)")
        #expect(
            problems(yaml) == [
                "4:18: `target.waitingRoomId` is the event id inside KnownUser tokens (e_{id}~q_…~h_…) and the session cookie's name, which cannot carry \(named): expected letters, digits and -, found \"\(id)\""
            ])
    }

    @Test("a group's own waitingRoomId is checked the same way")
    func groupEventId() {
        let yaml = minimal + "visitors:\n  - { name: vip, waitingRoomId: vip_room }\n"
        #expect(
            problems(yaml) == [
                "9:33: `visitors[0].waitingRoomId` is the event id inside KnownUser tokens (e_{id}~q_…~h_…) and the session cookie's name, which cannot carry `_`: expected letters, digits and -, found \"vip_room\""
            ])
    }

    @Test("ids made of letters, digits and - are accepted, in any case")
    func plainEventIds() throws {
        for id in ["launch", "Spring-Launch-2026", "e1", "0"] {
            let scenario = try ScenarioTestSupport.load(
                minimal.replacingOccurrences(of: "waitingRoomId: launch", with: "waitingRoomId: \(id)"))
            #expect(scenario.target.waitingRoomId == id)
        }
    }

    @Test("a secret from ${VAR} that expands to nothing is refused like a literal empty one")
    func emptySecretFromTheEnvironment() {
        let literal = problems(minimal + "waitingRoom:\n  secretKey: \"\"\n")
        #expect(literal == ["9:14: `waitingRoom.secretKey` must not be empty"])
        for written in ["${SECRET}", "${SECRET:-}", "\"${SECRET}\"", "${UNSET:-}"] {
            #expect(
                problems(minimal + "waitingRoom:\n  secretKey: \(written)\n", environment: ["SECRET": ""]) == literal,
                "\(written)")
        }
        // Before, a plain `${SECRET}` that expanded to nothing read as null: the room signed
        // with the public default secret.
        #expect(
            problems(minimal + "waitingRoom:\n  secretKey: ${SECRET}\n", environment: ["SECRET": "null"]) == [],
            "a variable's value is text, never null")
        let scenario = try? ScenarioTestSupport.load(
            minimal + "waitingRoom:\n  secretKey: ${SECRET}\n", environment: ["SECRET": "null"])
        #expect(scenario?.waitingRoom?.secretKey == "null")
    }

    @Test("an enqueue token or key from ${VAR} that expands to nothing is refused too")
    func emptyCredentialFromTheEnvironment() {
        #expect(
            problems(minimal + "visitors:\n  - name: partner\n    enqueueToken: ${TOKEN}\n", environment: ["TOKEN": ""])
                == ["10:19: `visitors[0].enqueueToken` must not be empty"])
        #expect(
            problems(minimal + "visitors:\n  - name: invited\n    enqueueKey: ${KEY}\n", environment: ["KEY": ""])
                == ["10:17: `visitors[0].enqueueKey` must not be empty"])
    }

    @Test("a number from ${VAR} is still a number")
    func numbersFromTheEnvironment() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + "seed: ${SEED}\nrun:\n  concurrency: ${CONCURRENCY:-7}\n", environment: ["SEED": "42"])
        #expect(scenario.seed == 42)
        #expect(scenario.run.concurrency == 7)
    }
}
