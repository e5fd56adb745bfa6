/// Why a driver stopped a visitor from outside.
package enum StopReason: String, Sendable, Hashable {
    /// `run.duration` ran out: visitors in the queue end `queued`, the rest `interrupted`.
    case runEnded
    /// SIGINT/SIGTERM: everything in flight ends `interrupted`.
    case interrupted
    /// A guardrail (a threshold with `abortOnFail`) failed: everything in flight ends
    /// `interrupted`, as on SIGINT.
    case guardrail
}
