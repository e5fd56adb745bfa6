import Foundation
import NIOCore
import NIOPosix

/// NIO's shared event loops, one per core this process may run on.
package enum EventLoopSizing {
    /// Call once, before anything uses NIO (the command line does, first thing): NIO sizes its
    /// shared group by the machine's cores, and under `taskset -c 1` two loops would take turns
    /// on one core (the embedded room's and `serve`'s connections among them). A user's own
    /// `NIO_SINGLETON_GROUP_LOOP_COUNT` wins.
    package static func matchAffinityMask() {
        guard ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil,
            let cores = ProcessCPUTime.usableCores(), cores < System.coreCount
        else { return }
        NIOSingletons.groupLoopCountSuggestion = cores
    }
}
