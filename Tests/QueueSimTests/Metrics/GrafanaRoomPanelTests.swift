import Foundation
import Testing

/// deploy/grafana/queuesim.json's room panel: queue length (hundreds of thousands) and releases
/// per second (tens) on one axis made the releases a flat line at zero; each has its own now.
/// And the run variable lists the room's run_id too (a `serve` started alone has no arrivals).
@Suite("Grafana dashboard: the room panel's two axes, the room in the run variable")
struct GrafanaRoomPanelTests {
    static let dashboardPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/grafana/queuesim.json")

    private func dashboard() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.dashboardPath)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The legend of the room panel's query for `metric`, and the axis its override places it on.
    private func axis(of metric: String, in panel: [String: Any]) throws -> String? {
        let targets = try #require(panel["targets"] as? [[String: Any]])
        let target = try #require(targets.first { ($0["expr"] as? String)?.contains(metric) == true })
        let legend = try #require(target["legendFormat"] as? String)
        let overrides = (panel["fieldConfig"] as? [String: Any])?["overrides"] as? [[String: Any]] ?? []
        let override = overrides.first { override in
            let matcher = override["matcher"] as? [String: Any]
            return matcher?["id"] as? String == "byName" && matcher?["options"] as? String == legend
        }
        let properties = override?["properties"] as? [[String: Any]] ?? []
        return properties.first { $0["id"] as? String == "custom.axisPlacement" }?["value"] as? String
    }

    @Test("releases per second on the right axis, queue length on the left")
    func roomPanelAxes() throws {
        let panels = try #require(try dashboard()["panels"] as? [[String: Any]])
        let room = try #require(
            panels.first { panel in
                (panel["targets"] as? [[String: Any]] ?? []).contains {
                    ($0["expr"] as? String)?.contains("queuesim_room_released_total") == true
                }
            })
        #expect(try axis(of: "queuesim_room_released_total", in: room) == "right")
        #expect(try axis(of: "queuesim_room_queue_length", in: room) == "left")
    }

    @Test("the run variable lists runs that have arrivals and rooms that have a queue")
    func runVariableShowsTheRoom() throws {
        let templating = try #require(try dashboard()["templating"] as? [String: Any])
        let variables = try #require(templating["list"] as? [[String: Any]])
        let run = try #require(variables.first { $0["name"] as? String == "run_id" })
        let definition = try #require(run["definition"] as? String)
        #expect(definition.contains("queuesim_room_queue_length") && definition.contains("queuesim_arrivals_total"))
    }
}
