import QueueClientCore

/// One shard's `visitors.csv`, its rows checked to be this shard's and in visitor order.
struct ShardRows {
    let folder: String
    let rows: [ArraySlice<UInt8>]
    let visitorNumbers: [Int]
    /// With or without the optional columns (`platform`, `comebacks`, `protocol`): the shards
    /// of one scenario agree.
    let header: String

    init(member: ShardSet.Member) throws {
        folder = member.folder
        let path = Recorder.path(member.folder, Recorder.visitorsFile)
        let bytes: [UInt8]
        do {
            bytes = try RegularFileReader.contents(path: path, limit: Int.max)
        } catch {
            throw ShardSet.Failure.unreadable(path, reason: error.description)
        }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")),
            case let line = String(decoding: bytes[...newline], as: UTF8.self),
            VisitorRowFormat.headers.contains(String(line.dropLast()))
        else { throw ShardSet.Failure.mismatched(folder, reason: "its visitors.csv has not queuesim's header") }
        header = line
        rows = VisitorRowFormat.completeRows(Array(bytes[(newline + 1)...]))
        var numbers: [Int] = []
        numbers.reserveCapacity(rows.count)
        let shard = PlanShard(index: member.report.shardIndex, count: member.report.shardCount)!
        for row in rows {
            let number = Int(String(decoding: row.prefix(while: { $0 != UInt8(ascii: ",") }), as: UTF8.self))
            guard let number, number >= 1, shard.owns(number - 1), number > (numbers.last ?? 0) else {
                throw ShardSet.Failure.mismatched(
                    folder, reason: "visitors.csv has a row that is not shard \(shard)'s, or out of visitor order")
            }
            numbers.append(number)
        }
        visitorNumbers = numbers
        guard rows.count == member.report.recordedVisitors else {
            throw ShardSet.Failure.mismatched(
                folder,
                reason:
                    "visitors.csv has \(rows.count) rows but shard.json counts \(member.report.recordedVisitors)")
        }
    }
}

extension ShardRows {
    /// Calls `body(shard, row)` for every row of every shard in visitor order: each shard's
    /// rows are in visitor order already, so this interleaves them.
    static func inVisitorOrder(_ shards: [ShardRows], _ body: (Int, Int) throws -> Void) rethrows {
        var positions = Array(repeating: 0, count: shards.count)
        while true {
            var next: Int?
            for shard in shards.indices where positions[shard] < shards[shard].rows.count {
                if let best = next,
                    shards[best].visitorNumbers[positions[best]] < shards[shard].visitorNumbers[positions[shard]]
                {
                    continue
                }
                next = shard
            }
            guard let shard = next else { return }
            try body(shard, positions[shard])
            positions[shard] += 1
        }
    }
}

/// One shard's figures rebuilt from its own `visitors.csv`, the record `merge` trusts: counts
/// and timing histograms per group and outcome, as the shard's recorder filled them.
///
/// A row cannot tell a visitor who entered the queue page and left it within the same
/// millisecond without a poll from one who never entered it (both read `wait_ms` 0): waits of
/// 0 ms are counted apart, and the shard's own count of them (`shard.json`) is taken when it
/// is no more than the rows allow. Every other value is the row's, exactly (whole
/// milliseconds, as the histograms were fed).
struct ShardRowFigures {
    /// Waits of 0 ms are left out of the wait histograms (see `zeroWaits`).
    var statistics: OutcomeStatistics
    /// Rows with `wait_ms` 0, by `ShardRowFigures.key(group:outcome:)`.
    var zeroWaits: [String: Int] = [:]
    var outcomes: [VisitorOutcome: Int] = [:]
    var rows = 0

    init(groupNames: [String]) {
        statistics = OutcomeStatistics(groupNames: groupNames)
    }

    static func key(group: String, outcome: VisitorOutcome) -> String { group + "\u{0}" + outcome.rawValue }

    mutating func add(_ record: VisitorRecord) {
        var record = record
        if record.waitMilliseconds == 0 {
            zeroWaits[Self.key(group: record.group, outcome: record.outcome), default: 0] += 1
            record.queueEntered = nil
        }
        statistics.add(record)
        outcomes[record.outcome, default: 0] += 1
        rows += 1
    }
}
