import QueueClientCore

/// Runs one `VisitorMachine` on a real clock and transport (the wall-clock driver).
///
/// Test support, not library: the client core's tests and `queuesim serve`'s drive one visitor
/// over real HTTP with it. What ships drives the machines itself: `QueueItEngine` for an app,
/// the live and virtual engines of QueueSim for `queuesim run`.
///
/// On task cancellation the visitor is stopped with `cancellationReason()` (default
/// `.interrupted`, for SIGINT; a runner ending at `run.duration` passes `.runEnded`).
/// `onRequest` is called with the send time of every request (for requests/s counts), and
/// `onPhaseChange` with every change of `machine.phase` (for "in queue" counts).
package func runVisitor(
    _ machine: inout VisitorMachine,
    transport: some HTTPTransport,
    clock: some RunClock,
    cancellationReason: @Sendable () -> StopReason = { .interrupted },
    onRequest: (@Sendable (RunInstant) -> Void)? = nil,
    onPhaseChange: (@Sendable (_ from: VisitorPhase, _ to: VisitorPhase) -> Void)? = nil
) async -> VisitorResult {
    var phase = machine.phase
    var action = machine.start(at: clock.now)
    while true {
        if let onPhaseChange, machine.phase != phase {
            onPhaseChange(phase, machine.phase)
            phase = machine.phase
        }
        switch action {
        case .finish(let result):
            return result
        case .send(let request, let timeout):
            if Task.isCancelled { return stopped(&machine, phase, clock.now, cancellationReason(), onPhaseChange) }
            onRequest?(clock.now)
            // A transport sees the answer whole: the longest wait for it.
            let outcome = await transport.execute(request, timeout: timeout.answerBound(sentAt: clock.now))
            if Task.isCancelled { return stopped(&machine, phase, clock.now, cancellationReason(), onPhaseChange) }
            switch outcome {
            case .success(let response): action = machine.received(response, at: clock.now)
            case .failure(let error): action = machine.failed(error, at: clock.now)
            }
        case .wait(let deadline):
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return stopped(&machine, phase, clock.now, cancellationReason(), onPhaseChange)
            }
            if Task.isCancelled { return stopped(&machine, phase, clock.now, cancellationReason(), onPhaseChange) }
            action = machine.waited(at: clock.now)
        }
    }
}

/// Stops the machine from outside and reports its last phase change (to `.finished`).
private func stopped(
    _ machine: inout VisitorMachine, _ phase: VisitorPhase, _ now: RunInstant, _ reason: StopReason,
    _ onPhaseChange: (@Sendable (VisitorPhase, VisitorPhase) -> Void)?
) -> VisitorResult {
    let result = machine.stop(at: now, reason: reason)
    onPhaseChange?(phase, .finished)
    return result
}

/// Convenience: a fresh machine for `configuration`, run to its end.
package func runVisitor(
    configuration: VisitorConfiguration,
    transport: some HTTPTransport,
    clock: some RunClock,
    cancellationReason: @Sendable () -> StopReason = { .interrupted },
    onRequest: (@Sendable (RunInstant) -> Void)? = nil
) async -> VisitorResult {
    var machine = VisitorMachine(configuration: configuration)
    return await runVisitor(
        &machine, transport: transport, clock: clock, cancellationReason: cancellationReason, onRequest: onRequest)
}
