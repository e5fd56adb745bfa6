import Foundation

/// Which part of which plan a sharded run ran (`--shard K/N`): what `queuesim merge` checks
/// before it puts shards together, and what the shard's reports say about themselves.
package struct ShardIdentity: Sendable, Equatable {
    package var shard: PlanShard
    /// `--visitors N`, which changes the plan (nil: the scenario's own).
    package var visitorsOverride: Int?
    /// The whole plan's visitors, and this shard's share of them.
    package var plannedVisitors: Int
    package var shardVisitors: Int
    package init(shard: PlanShard, visitorsOverride: Int?, plannedVisitors: Int, shardVisitors: Int) {
        self.shard = shard
        self.visitorsOverride = visitorsOverride
        self.plannedVisitors = plannedVisitors
        self.shardVisitors = shardVisitors
    }
}
