/// The cap on waits as a run's recorded configuration states it, for commands that judge a
/// run from its files (`merge`): the same `MeasurementCap.wait` the run itself judged with.
extension RunConfiguration {
    /// Nil when the configuration names no group (nothing says what `client.maxWait` was).
    package var waitCap: MeasurementCap? {
        guard let maxWaitMs = groups.first?.maxWaitMs else { return nil }
        return .wait(maxWait: .milliseconds(maxWaitMs), runDuration: run.durationMs.map { .milliseconds($0) })
    }
}
