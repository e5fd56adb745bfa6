import Testing

@testable import QueueSim

/// report.html's per-second rates: a comb of spikes (passes alternating 96, 4, 96, 4 … around an
/// outflow of 50/s) drawn past a frame's room as a mean line in a band from the lowest to the
/// highest second of each block; a short run keeps its steps.
@Suite("report.html: a per-second comb drawn as its mean in a band")
struct RateBandTests {
    /// `seconds` seconds alternating `high` and `low`, with one burst second.
    static func comb(seconds: Int, high: Double = 96, low: Double = 4, burstAt: Int? = nil) -> SVGChart {
        let points = (0..<seconds).map { second -> (x: Double, y: Double) in
            (Double(second), second == burstAt ? 5000 : (second % 2 == 0 ? high : low))
        }
        return SVGChart(
            title: "Passed", xLabel: "time", yLabel: "visitors per second", unit: .perSecond,
            series: [.init(name: "passed/s", points: points, style: .rate(width: 1))], xMax: Double(seconds))
    }

    @Test("blocks of even round length: 10 s for 400 s wide, never a 5 s block that zigzags")
    func blockLengths() {
        #expect(SVGChart.blockFactor(steps: 100, width: 1, frame: SVGChart.wide) == 1)
        #expect(SVGChart.blockFactor(steps: 409, width: 1, frame: SVGChart.wide) == 10)
        #expect(SVGChart.blockFactor(steps: 409, width: 1, frame: SVGChart.narrow) == 10)
        #expect(SVGChart.blockFactor(steps: 3600, width: 1, frame: SVGChart.wide) == 30)
        #expect(SVGChart.blockFactor(steps: 3600, width: 1, frame: SVGChart.narrow) == 120)
        // A long run averaged over 10 s per step: blocks stay whole numbers of its steps.
        #expect(SVGChart.blockFactor(steps: 2000, width: 10, frame: SVGChart.wide) == 30)
    }

    @Test("each block's mean, lowest and highest second: the comb's level is its mean, flat")
    func blocksOfAComb() {
        let points = (0..<40).map { (x: Double($0), y: $0 % 2 == 0 ? 96.0 : 4.0) }
        let blocks = SVGChart.blocks(points, width: 1, factor: 10)
        #expect(blocks.count == 4)
        #expect(blocks.allSatisfy { $0.mean == 50 && $0.low == 4 && $0.high == 96 && $0.width == 10 })
        #expect(blocks.map(\.x) == [0, 10, 20, 30])
    }

    @Test("a 400 s comb is drawn as a band and a mean line, and a burst still reaches the band's top")
    func longCombIsABand() throws {
        let html = Self.comb(seconds: 400, burstAt: 125).render()
        // Both drawings (wide and narrow) say what they draw, in the drawing itself.
        #expect(html.components(separatedBy: "line: mean per 10s; band: lowest to highest second").count == 3)
        #expect(html.components(separatedBy: "<path class=\"band s0\"").count == 3)
        // The wide drawing's y axis reaches the burst (5,000/s), which only the band shows.
        #expect(html.contains(">5000/s</text>"))
        // The hover columns give each block's mean and its spread.
        #expect(html.contains("<title>0:00–0:10: passed/s mean 50/s (4/s to 96/s)</title>"))
        // The rate itself is a line through the blocks' middles (40 of them wide), not 400 steps.
        let start = try #require(html.range(of: "<path class=\"s0\" d=\""))
        let path = html[start.upperBound...].prefix { $0 != "\"" }
        #expect(!path.contains("V") && !path.contains("H"), "\(path.prefix(80))")
        #expect(path.split(separator: "L").count == 40)
    }

    @Test("a short run keeps its per-second steps and exact hover values, no band")
    func shortRunKeepsSteps() {
        let html = Self.comb(seconds: 50).render()
        #expect(!html.contains("band"))
        #expect(!html.contains("line: mean per"))
        #expect(html.contains("<title>0:00–0:01: passed/s 96/s</title>"))
    }
}
