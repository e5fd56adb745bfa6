/// A per-second rate in blocks (`SVGChart.Style.rate`): a second-by-second series hundreds of
/// seconds long drawn as steps is a comb of spikes (visitors polling in step make the passes
/// alternate 96, 5, 80, 34 … around an outflow of 50/s) in which neither the level nor the
/// spread can be read. Past `Frame.maxBlocks` steps, each block of round length (10 s, 20 s,
/// 30 s, 1 min …) is drawn as its mean, a line, inside a band from its lowest to its
/// highest step: the level is the line, and a burst still reaches the band's top.
extension SVGChart {
    struct Block: Equatable {
        var x: Double
        var width: Double
        var mean: Double
        var low: Double
        var high: Double
    }

    /// Block lengths in seconds: round, and even, since a crowd polling in step makes a comb of
    /// period 2 s, and an odd block (5 s) holds alternately two and three of its teeth (the
    /// mean line would zigzag by a fifth).
    static let blockSeconds: [Double] = [10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600, 43200, 86400]

    /// How many steps of `width` seconds make a block in `frame`: 1 (steps as they are) when
    /// there are at most `maxBlocks`, else the fewest that make a round block length and at
    /// most `maxBlocks` blocks.
    static func blockFactor(steps: Int, width: Double, frame: Frame) -> Int {
        guard steps > frame.maxBlocks, width > 0 else { return 1 }
        for seconds in blockSeconds where seconds > width {
            let factor = Int((seconds / width).rounded(.up))
            if (steps + factor - 1) / factor <= frame.maxBlocks { return factor }
        }
        return (steps + frame.maxBlocks - 1) / frame.maxBlocks
    }

    /// Consecutive runs of `factor` steps: their mean, lowest and highest value.
    static func blocks(_ points: [(x: Double, y: Double)], width: Double, factor: Int) -> [Block] {
        stride(from: 0, to: points.count, by: max(factor, 1)).map { start in
            let slice = points[start..<min(points.count, start + max(factor, 1))]
            let values = slice.map(\.y)
            return Block(
                x: slice.first!.x, width: width * Double(slice.count),
                mean: values.reduce(0, +) / Double(values.count), low: values.min()!, high: values.max()!)
        }
    }

    /// The band: along the blocks' highest steps, back along their lowest, closed.
    static func bandPath(_ blocks: [Block], x: (Double) -> Double, y: (Double) -> Double) -> String {
        guard let first = blocks.first else { return "" }
        var d = "M\(f(x(first.x))) \(f(y(first.high)))"
        for block in blocks { d += " V\(f(y(block.high))) H\(f(x(block.x + block.width)))" }
        for block in blocks.reversed() { d += " V\(f(y(block.low))) H\(f(x(block.x)))" }
        return d + " Z"
    }

    static func linePath(_ points: [(x: Double, y: Double)], x: (Double) -> Double, y: (Double) -> Double) -> String {
        points.enumerated().map { offset, point in
            "\(offset == 0 ? "M" : "L")\(f(x(point.x))) \(f(y(point.y)))"
        }.joined(separator: " ")
    }

    /// From the baseline up to each value over its width, and back down at the end.
    static func stepsPath(
        _ points: [(x: Double, y: Double)], width: Double, x: (Double) -> Double, y: (Double) -> Double
    ) -> String {
        guard let first = points.first else { return "" }
        var d = "M\(f(x(first.x))) \(f(y(0)))"
        var lastEnd = first.x
        for point in points {
            if point.x > lastEnd + 1e-9 { d += " V\(f(y(0))) H\(f(x(point.x)))" }
            d += " V\(f(y(point.y))) H\(f(x(point.x + width)))"
            lastEnd = point.x + width
        }
        return d + " V\(f(y(0)))"
    }

    /// `5 s`, `1 min`: a block's length in the words of the chart's caption.
    static func seconds(_ value: Double) -> String {
        ScenarioUnits.describe(.milliseconds(Int64((value * 1000).rounded())))
    }

    /// Hover columns for the rates of the wide drawing: one per step, or per block with each
    /// rate's mean, lowest and highest second in it. Nil when the chart has no rate.
    func rateHoverTargets(x: (Double) -> Double, plotHeight: Double) -> String? {
        let rates = series.compactMap { line -> (Series, Double)? in
            if case .rate(let width) = line.style { (line, width) } else { nil }
        }
        guard let (first, width) = rates.first, !first.points.isEmpty else { return nil }
        let factor = max(
            Self.blockFactor(steps: first.points.count, width: width, frame: Self.wide),
            (first.points.count + Self.hoverTargets - 1) / Self.hoverTargets)
        let columns = rates.map { Self.blocks($0.0.points, width: $0.1, factor: factor) }
        var svg = ""
        for (index, block) in columns[0].enumerated() {
            let values = zip(rates, columns).compactMap { rate, blocks -> String? in
                guard index < blocks.count else { return nil }
                let block = blocks[index]
                let spread =
                    factor > 1 ? " (\(unit.exact(block.low)) to \(unit.exact(block.high)))" : ""
                return "\(rate.0.name) \(factor > 1 ? "mean " : "")\(unit.exact(block.mean))\(spread)"
            }
            let span =
                "\(TimeTicks.label(block.x, axis: xAxis))–\(TimeTicks.label(block.x + block.width, axis: xAxis))"
            svg +=
                "<rect class=\"hover\" x=\"\(Self.f(x(block.x)))\" y=\"\(Self.f(Self.top))\" width=\"\(Self.f(max(1, x(block.x + block.width) - x(block.x))))\" height=\"\(Self.f(plotHeight))\"><title>\(HTML.escape(span + ": " + values.joined(separator: ", ")))</title></rect>\n"
        }
        return svg
    }
}
