/// Where a visitor is, for progress counts.
package enum VisitorPhase: String, Sendable, Hashable, CaseIterable {
    case notStarted
    case protectedApi
    case enqueueing
    case inQueue
    case finished
}
