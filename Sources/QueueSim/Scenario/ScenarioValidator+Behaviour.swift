import Foundation

/// `visitors[i].patience`, `.comeback`, `.afterPass`: the distributions and their blocks,
/// each problem at its own position.
extension ScenarioValidator {
    static let distributionHelp =
        "{ mean: 8m } (exponential), { fixed: 10m }, { lognormal: { median: 6m, sigma: 0.8 } } or { csv: FILE, column: NAME }"
    /// The most comebacks `comeback.max` allows: a bound a user would never need, which keeps
    /// each attempt's random stream apart (`VisitorBehaviourDraws`).
    static let mostComebacks = 20
    /// The most after-pass calls per visitor.
    static let mostAfterPassCalls = 1_000

    mutating func behaviour(patience: YamlNode?, comeback: YamlNode?, afterPass: YamlNode?, key: String)
        -> VisitorBehaviour
    {
        var behaviour = VisitorBehaviour()
        if let patience, !patience.isNull {
            behaviour.patience = distribution(patience, key: "\(key).patience")
        }
        if let comeback, !comeback.isNull {
            behaviour.comeback = self.comeback(comeback, key: "\(key).comeback")
            if patience == nil || patience?.isNull == true {
                fail(
                    "`\(key).comeback` needs `\(key).patience`: only visitors who give up can come back",
                    at: comeback.mark)
            }
        }
        if let afterPass, !afterPass.isNull {
            behaviour.afterPass = self.afterPass(afterPass, key: "\(key).afterPass")
        }
        return behaviour
    }

    /// `{ mean: D }`, `{ fixed: D }`, `{ lognormal: { median: D, sigma: S } }` or
    /// `{ csv: FILE, column: NAME }`.
    mutating func distribution(_ node: YamlNode, key: String) -> DurationDistribution? {
        guard case .mapping(let pairs) = node.content else {
            fail("`\(key)` must be \(Self.distributionHelp), found \(node.kindDescription)", at: node.mark)
            return nil
        }
        guard
            checkKeys(pairs, known: ["mean", "fixed", "lognormal", "csv", "column"], key: key),
            let first = pairs.first?.key.scalarText
        else {
            if pairs.isEmpty {
                fail("`\(key)` must be \(Self.distributionHelp), found an empty mapping", at: node.mark)
            }
            return nil
        }
        let forms = pairs.compactMap(\.key.scalarText).filter { $0 != "column" }
        if forms.count > 1 {
            fail(
                "`\(key)` gives one distribution, found \(forms.map { "`\($0)`" }.joined(separator: " and "))",
                at: pairs[1].key.mark)
            return nil
        }
        switch forms.first ?? first {
        case "mean":
            return optionalDuration(node["mean"], key: "\(key).mean", allowZero: false).map { .exponential(mean: $0) }
        case "fixed":
            return optionalDuration(node["fixed"], key: "\(key).fixed", allowZero: true).map { .fixed($0) }
        case "lognormal":
            return lognormal(node["lognormal"]!, key: "\(key).lognormal")
        case "csv":
            return samples(node, key: key)
        default:
            fail("`\(key)` as a CSV of durations needs `csv: FILE` beside `column: NAME`", at: node.mark)
            return nil
        }
    }

    private mutating func lognormal(_ node: YamlNode, key: String) -> DurationDistribution? {
        guard case .mapping(let pairs) = node.content else {
            fail("`\(key)` must be { median: DURATION, sigma: NUMBER }, found \(node.kindDescription)", at: node.mark)
            return nil
        }
        guard checkKeys(pairs, known: ["median", "sigma"], key: key) else { return nil }
        guard node["median"] != nil, node["sigma"] != nil else {
            fail("`\(key)` needs both `median` and `sigma`, such as { median: 6m, sigma: 0.8 }", at: node.mark)
            return nil
        }
        let median = optionalDuration(node["median"], key: "\(key).median", allowZero: false)
        let sigmaNode = node["sigma"]!
        guard let sigmaText = scalarText(sigmaNode, key: "\(key).sigma", expected: "a number from 0 to 5") else {
            return nil
        }
        guard let sigma = Double(sigmaText), sigma.isFinite, sigma >= 0, sigma <= 5 else {
            fail("`\(key).sigma` must be a number from 0 to 5, found \(sigmaNode.kindDescription)", at: sigmaNode.mark)
            return nil
        }
        return median.map { .lognormal(median: $0, sigma: sigma) }
    }

    /// `{ csv: FILE, column: NAME }` of durations: read now, so a bad cell is reported before the
    /// run with its file and row.
    private mutating func samples(_ node: YamlNode, key: String) -> DurationDistribution? {
        guard let csvNode = node["csv"], let columnNode = node["column"],
            let csv = scalarText(csvNode, key: "\(key).csv", expected: "a CSV file name"),
            let column = scalarText(columnNode, key: "\(key).column", expected: "a column name")
        else {
            if node["column"] == nil { fail("`\(key)` as a CSV of durations needs `column: NAME`", at: node.mark) }
            return nil
        }
        let path = csv.hasPrefix("/") ? csv : (scenarioDirectory as NSString).appendingPathComponent(csv)
        if let problem = ScenarioLimits.feederSizeProblem(path: path, named: csv) {
            fail("`\(key).csv`: \(problem)", at: csvNode.mark)
            return nil
        }
        let cells: [String]
        do {
            cells = try CSVColumnReader.read(path: path, column: column)
        } catch {
            switch error {
            case .missingColumn: fail("`\(key).column`: \(error)", at: columnNode.mark)
            default: fail("`\(key).csv`: \(error)", at: csvNode.mark)
            }
            return nil
        }
        guard !cells.isEmpty else {
            fail("`\(key)`: \(csv) has a header but no rows", at: csvNode.mark)
            return nil
        }
        var durations: [Duration] = []
        durations.reserveCapacity(cells.count)
        for (row, cell) in cells.enumerated() {
            guard let value = ScenarioUnits.duration(String(cell.trimmingSpaces)), value >= .zero,
                value <= ScenarioLimits.longestDuration
            else {
                fail(
                    "`\(key)`: row \(row + 1) of column `\(column)` in \(csv) must be \(Self.durationHelp), found \"\(cell)\"",
                    at: csvNode.mark)
                return nil
            }
            durations.append(value)
        }
        return .samples(durations)
    }

    private mutating func comeback(_ node: YamlNode, key: String) -> ComebackBehaviour? {
        guard case .mapping(let pairs) = node.content else {
            fail(
                "`\(key)` must be { share: 30%, after: { mean: 2m } } (optionally max: N), found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        guard checkKeys(pairs, known: ["share", "after", "max"], key: key) else { return nil }
        guard let afterNode = node["after"], node["share"] != nil else {
            fail("`\(key)` needs both `share` and `after`, such as { share: 30%, after: { mean: 2m } }", at: node.mark)
            return nil
        }
        let share = fraction(node["share"], key: "\(key).share", allowZero: true)
        let after = distribution(afterNode, key: "\(key).after")
        var most = 1
        if let maxNode = node["max"] {
            guard let text = scalarText(maxNode, key: "\(key).max", expected: "a whole number from 1 to 20"),
                let value = Int(text), value >= 1, value <= Self.mostComebacks
            else {
                fail(
                    "`\(key).max` must be a whole number from 1 to \(Self.mostComebacks), found \(maxNode.kindDescription)",
                    at: maxNode.mark)
                return nil
            }
            most = value
        }
        guard let share, let after else { return nil }
        return ComebackBehaviour(share: share, after: after, max: most)
    }

    private mutating func afterPass(_ node: YamlNode, key: String) -> AfterPassBehaviour? {
        guard case .mapping(let pairs) = node.content else {
            fail(
                "`\(key)` must be { calls: 5, thinkTime: { mean: 20s }, noShow: 10% }, found \(node.kindDescription)",
                at: node.mark)
            return nil
        }
        guard checkKeys(pairs, known: ["calls", "thinkTime", "noShow"], key: key) else { return nil }
        guard let callsNode = node["calls"], let thinkNode = node["thinkTime"] else {
            fail(
                "`\(key)` needs both `calls` and `thinkTime`, such as { calls: 5, thinkTime: { mean: 20s } }",
                at: node.mark)
            return nil
        }
        var calls: Int?
        if let text = scalarText(callsNode, key: "\(key).calls", expected: "a whole number of requests") {
            if let value = Int(text), value >= 0, value <= Self.mostAfterPassCalls {
                calls = value
            } else {
                fail(
                    "`\(key).calls` must be a whole number from 0 to \(Self.mostAfterPassCalls), found \(callsNode.kindDescription)",
                    at: callsNode.mark)
            }
        }
        let thinkTime = distribution(thinkNode, key: "\(key).thinkTime")
        let noShow = node["noShow"].map { fraction($0, key: "\(key).noShow", allowZero: true) } ?? 0
        guard let calls, let thinkTime, let noShow else { return nil }
        return AfterPassBehaviour(calls: calls, thinkTime: thinkTime, noShow: noShow)
    }

    /// Unknown keys of a mapping the validator reads itself, with "did you mean".
    private mutating func checkKeys(_ pairs: [YamlPair], known: [String], key: String) -> Bool {
        var clean = true
        for pair in pairs {
            guard let name = pair.key.scalarText, !known.contains(name) else { continue }
            var message =
                "unknown key `\(name)` in `\(key)`; expected \(known.map { "`\($0)`" }.joined(separator: ", "))"
            if let suggestion = YamlKnownKeys.closest(to: name, among: known) {
                message += "; did you mean `\(suggestion)`?"
            }
            fail(message, at: pair.key.mark)
            clean = false
        }
        return clean
    }
}
