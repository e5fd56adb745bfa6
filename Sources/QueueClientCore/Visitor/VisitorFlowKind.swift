/// Which SDK entry point a visitor uses.
package enum VisitorFlowKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `run()` / `runWithEnqueueKey` / `runWithEnqueueToken`: enqueue, then the queue page.
    case run
    /// `tryPass()` then `showQueue(queueTryPassResult:)`: the same decisions, the same outcome.
    case tryPass
    /// The hybrid KnownUser flow: the protected API first, the waiting room when it redirects.
    case protectedApi
}
