import QueueClientCore

/// `platform:` of a group: one platform (`android`), or a mix whose shares add up to 100 %
/// (`{ ios: 60%, android: 40% }`).
extension ScenarioValidator {
    static let platformHelp = "ios, android, or a mix such as { ios: 60%, android: 40% }"

    /// The group's platforms; nil (with the problems recorded) when they cannot be read.
    mutating func platformMix(_ node: YamlNode, key: String, client: ClientPlatform) -> PlatformMix? {
        switch node.content {
        case .scalar(let text, _) where !node.isNull:
            let before = problems.count
            let platform = choice(Positioned(text, at: node.mark), key: key, default: client)
            return problems.count == before ? .only(platform) : nil
        case .mapping(let pairs):
            return platformShares(pairs, at: node.mark, key: key)
        default:
            fail("`\(key)` must be \(Self.platformHelp), found \(node.kindDescription)", at: node.mark)
            return nil
        }
    }

    private mutating func platformShares(_ pairs: [YamlPair], at mark: YamlMark, key: String) -> PlatformMix? {
        guard !pairs.isEmpty else {
            fail("`\(key)` is an empty mix; expected \(Self.platformHelp)", at: mark)
            return nil
        }
        let before = problems.count
        var shares: [PlatformMix.Share] = []
        for pair in pairs {
            let name = pair.key.scalarText ?? ""
            guard let platform = ClientPlatform(rawValue: name) else {
                let words = ClientPlatform.allCases.map(\.rawValue)
                let hint =
                    YamlKnownKeys.closest(to: name, among: words).map { "did you mean `\($0)`?" }
                    ?? "expected \(words.joined(separator: " or "))"
                fail("unknown platform `\(name)` in `\(key)`; \(hint)", at: pair.key.mark)
                continue
            }
            if let fraction = fraction(pair.value, key: "\(key).\(name)", allowZero: true) {
                shares.append(PlatformMix.Share(platform, fraction))
            }
        }
        guard problems.count == before else { return nil }
        let total = shares.reduce(0) { $0 + $1.fraction }
        // Shares are written as percentages or fractions with a few decimals: anything further
        // from 100 % than rounding is a mistake worth stopping for.
        guard abs(total - 1) < 1e-9 else {
            let written = shares.map { "\($0.platform.rawValue) \(PercentText.of($0.fraction))" }.joined(
                separator: ", ")
            fail(
                "the shares of `\(key)` add up to \(PercentText.of(total)) (\(written)); they must add up to 100%",
                at: mark)
            return nil
        }
        // A platform at 0 % runs no visitor: the group is of one platform if only one is left.
        let used = shares.filter { $0.fraction > 0 }
        return used.count == 1 ? .only(used[0].platform) : PlatformMix(shares: used)
    }
}
