import QueueClientCore

/// What a clock adapter (`VirtualDriver`, `LoopDriver`) reads of a prepared run to build its
/// engine: the groups' configurations and behaviours, the run's pace and its longest request.
/// `PreparedRun.driverInput` (in `Run/`, above) makes one, so the adapters never name the run.
struct DriverInput: Sendable {
    /// One configuration per group and platform of its mix (`[group][platformIndex]`), with
    /// everything but the visitor's own data filled in.
    var templates: [[VisitorConfiguration]]
    /// The groups' `patience`, `comeback` and `afterPass`; nil when no group has one.
    var behaviours: VisitorBehaviourBook?
    /// This process's share of `run.maxRequestRate`; nil when the run is not paced.
    var requestPacer: RequestPacer?
    /// The longest a request of the scenario may wait for its answer (a live connect's bound).
    var longestRequestTimeout: Duration
    /// `run.duration` on the run's clock; nil when the run lasts until its last visitor.
    var deadline: RunInstant?
}
