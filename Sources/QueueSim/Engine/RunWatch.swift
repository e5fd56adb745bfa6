import QueueClientCore

/// What watches a run as its clock passes each whole second, told every finished visitor, and
/// may stop the run: the scenario's windowed thresholds (`GuardrailMonitor`) are the one there
/// is. Defined here, below the results, so a clock adapter feeds one without naming it, as it
/// hands rows to a `FinishedVisitorSink`.
protocol RunWatch {
    /// A visitor finished (at `visitor.result.marks.ended`), in the order the engine finished them.
    mutating func visitorFinished(_ visitor: FinishedVisitor)

    /// Every whole second of the run up to `instant` is over (no visitor still to be told
    /// finished before it). Returns the instant the run stops at when the watch tripped.
    mutating func secondsOver(upTo instant: RunInstant) -> RunInstant?

    /// The run ended at `end` on its own (not stopped), with every visitor told.
    mutating func runEnded(at end: RunInstant)
}
