import Foundation

/// One process's share of a plan in a sharded run (`queuesim run --shard K/N`): the visitors
/// whose index is K modulo N.
///
/// Interleaved, not contiguous blocks: every shard then carries 1/N of every second of the
/// plan (a ramp, a burst at event start, a quiet tail), so shards are equally busy at every
/// moment and a pod is sized by the peak divided by N. Contiguous blocks would hand the first
/// pod the start of the ramp and the last one the burst at its end. Every shard still builds
/// the whole plan (`VisitorPlan` walks it), so groups, user ids and feeder rows are those of
/// the single-machine plan.
package struct PlanShard: Sendable, Equatable, CustomStringConvertible {
    /// 0-based, below `count`.
    package let index: Int
    package let count: Int

    /// The most shards a run may be cut into.
    package static let mostShards = 10_000

    package init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.mostShards, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// The whole plan as one shard.
    package static let whole = PlanShard(index: 0, count: 1)!

    package var isWhole: Bool { count == 1 }

    /// Whether visitor `visitorIndex` (0-based) is this shard's.
    @inlinable package func owns(_ visitorIndex: Int) -> Bool {
        count == 1 || visitorIndex % count == index
    }

    /// The visitor's position among this shard's own visitors (0, 1, 2, …), which the run's
    /// event loops divide among themselves.
    @inlinable package func localPosition(of visitorIndex: Int) -> Int {
        visitorIndex / count
    }

    /// How many of `visitors` planned visitors are this shard's.
    package func share(of visitors: Int) -> Int {
        visitors / count + (index < visitors % count ? 1 : 0)
    }

    /// `K/N`, 0-based, as `--shard` takes it.
    package var description: String { "\(index)/\(count)" }

    /// What `--shard` accepts: `K/N` (0-based K), or `auto/N` with K from `JOB_COMPLETION_INDEX`
    /// (the index Kubernetes gives each pod of an Indexed Job).
    package static func parse(_ text: String, environment: [String: String]) -> Result<PlanShard, ParseFailure> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), count >= 1, count <= mostShards else {
            return .failure(.malformed(text))
        }
        let index: Int
        if parts[0] == "auto" {
            guard let value = environment[jobIndexVariable] else { return .failure(.noJobIndex(count: count)) }
            guard let parsed = Int(value.trimmingCharacters(in: .whitespaces)) else {
                return .failure(.badJobIndex(value, count: count))
            }
            index = parsed
        } else {
            guard let parsed = Int(parts[0]) else { return .failure(.malformed(text)) }
            index = parsed
        }
        guard let shard = PlanShard(index: index, count: count) else {
            return .failure(.indexOutOfRange(index: index, count: count))
        }
        return .success(shard)
    }

    package static let jobIndexVariable = "JOB_COMPLETION_INDEX"

    package enum ParseFailure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case noJobIndex(count: Int)
        case badJobIndex(String, count: Int)
        case indexOutOfRange(index: Int, count: Int)

        package var description: String {
            switch self {
            case .malformed(let text):
                "--shard takes K/N (K from 0 to N-1, N from 1 to \(PlanShard.mostShards)) or auto/N, found \"\(text)\""
            case .noJobIndex(let count):
                "--shard auto/\(count) reads \(PlanShard.jobIndexVariable), which is not set (Kubernetes sets it in the pods of an Indexed Job); give --shard K/\(count) instead"
            case .badJobIndex(let value, let count):
                "--shard auto/\(count): \(PlanShard.jobIndexVariable) is \"\(value)\", not a number from 0 to \(count - 1)"
            case .indexOutOfRange(let index, let count):
                "--shard \(index)/\(count): the shard number must be from 0 to \(count - 1) (it is 0-based)"
            }
        }
    }
}
