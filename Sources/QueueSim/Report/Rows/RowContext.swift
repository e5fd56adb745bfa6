import QueueClientCore

/// What a visitor's report row reads of its run besides the visitor's own outcome: each
/// group's name, flow word, waiting room id and platforms, and which optional columns
/// visitors.csv has. `PreparedRun.rowContext` (in `Run/`, above) makes one, so the row road
/// never names the run.
struct RowContext: Sendable {
    /// Each group's name and flow word, by group index.
    var groupNames: [String]
    var flowWords: [String]
    /// The waiting room id each group's visitors are configured with (their tokens' event id).
    var eventIds: [String]
    /// Each group's platforms, by group index, and the seed they are drawn with.
    var groupPlatforms: [PlatformMix]
    var seed: UInt64
    /// Whether a group mixes platforms: rows then carry a `platform`.
    var mixesPlatforms: Bool
    /// Whether some group has `comeback`: visitors.csv then ends with a `comebacks` column.
    var hasComebacks: Bool
    /// Whether rows say which HTTP versions answered each visitor (a live run with a TLS
    /// destination, where h2 may be agreed): visitors.csv then ends with a `protocol` column.
    var recordsProtocols = false

    /// The platform visitor `index` of group `group` runs as.
    func platform(ofVisitor index: Int, group: Int) -> ClientPlatform {
        Self.platform(ofVisitor: index, in: groupPlatforms[group], seed: seed)
    }

    /// The plan's draw again, from the seed: a row needs nothing carried through the engine.
    static func platform(ofVisitor index: Int, in platforms: PlatformMix, seed: UInt64) -> ClientPlatform {
        platforms.shares[platforms.shareIndex(forVisitor: index, seed: seed)].platform
    }
}
