import Foundation
import Testing

@testable import QueueSim

/// What `calibrate` fits per group, and the fitted scenario's text: values replaced where they
/// stand, an absent key added in the group's own style, comments kept.
@Suite("calibrate: the unknowns and the edited scenario text")
struct CalibrationKnobTests {
    static let yaml = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 10 } ] }
        visitors:
          - name: web   # the site
            patience: { lognormal: { median: 6m, sigma: 0.8 } }
            comeback: { share: 30%, after: { mean: 2m } }
          - { name: app, patience: { mean: 8m }, noShow: 2% }

        """

    @Test("log-normal median and sigma, noShow (absent counts as 0) and the comeback share")
    func knobs() throws {
        let scenario = try ScenarioTestSupport.load(Self.yaml)
        let knobs = CalibrationKnob.knobs(of: scenario)
        #expect(
            knobs.map(\.key) == [
                "visitors.web.patience.lognormal.median", "visitors.web.patience.lognormal.sigma",
                "visitors.web.noShow", "visitors.web.comeback.share", "visitors.app.patience.mean",
                "visitors.app.noShow",
            ])
        #expect(knobs.map(\.original) == [360, 0.8, nil, 0.3, 480, 0.02])
        #expect(knobs[0].text(361.4) == "361s" && knobs[2].text(0.055) == "5.5%" && knobs[1].text(0.8125) == "0.813")
    }

    @Test("values replaced in place, noShow added beside name in block and flow style, comments kept")
    func editedText() throws {
        let edited = try CalibratedScenarioText.edit(
            Self.yaml,
            values: [
                ("visitors.web.patience.lognormal.median", "300s"), ("visitors.web.noShow", "4%"),
                ("visitors.web.comeback.share", "25%"), ("visitors.app.patience.mean", "200s"),
                ("visitors.app.noShow", "7.5%"),
            ])
        #expect(edited.contains("  - noShow: 4%\n    name: web   # the site\n"), "\(edited)")
        #expect(edited.contains("patience: { lognormal: { median: 300s, sigma: 0.8 } }"))
        #expect(edited.contains("comeback: { share: 25%, after: { mean: 2m } }"))
        #expect(edited.contains("  - { name: app, patience: { mean: 200s }, noShow: 7.5% }"))
        let reloaded = try ScenarioTestSupport.load(edited)
        #expect(reloaded.groups.map(\.behaviour.noShow) == [0.04, 0.075])
    }
}
