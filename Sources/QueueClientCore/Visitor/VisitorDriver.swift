/// Runs one `VisitorMachine` on a real clock and transport (the wall-clock driver).
///
/// On task cancellation the visitor is stopped with `cancellationReason()` (default
/// `.interrupted`, for SIGINT; a runner ending at `run.duration` passes `.runEnded`).
/// `onRequest` is called with the send time of every request (for requests/s counts).
public func runVisitor(
    _ machine: inout VisitorMachine,
    transport: some HTTPTransport,
    clock: some RunClock,
    cancellationReason: @Sendable () -> StopReason = { .interrupted },
    onRequest: (@Sendable (Instant) -> Void)? = nil
) async -> VisitorResult {
    var action = machine.start(at: clock.now)
    while true {
        switch action {
        case .finish(let result):
            return result
        case .send(let request, let timeout):
            if Task.isCancelled { return machine.stop(at: clock.now, reason: cancellationReason()) }
            onRequest?(clock.now)
            let outcome = await transport.execute(request, timeout: timeout)
            if Task.isCancelled { return machine.stop(at: clock.now, reason: cancellationReason()) }
            switch outcome {
            case .success(let response): action = machine.received(response, at: clock.now)
            case .failure(let error): action = machine.failed(error, at: clock.now)
            }
        case .wait(let deadline):
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return machine.stop(at: clock.now, reason: cancellationReason())
            }
            if Task.isCancelled { return machine.stop(at: clock.now, reason: cancellationReason()) }
            action = machine.waited(at: clock.now)
        }
    }
}

/// Convenience: a fresh machine for `configuration`, run to its end.
public func runVisitor(
    configuration: VisitorConfiguration,
    transport: some HTTPTransport,
    clock: some RunClock,
    cancellationReason: @Sendable () -> StopReason = { .interrupted },
    onRequest: (@Sendable (Instant) -> Void)? = nil
) async -> VisitorResult {
    var machine = VisitorMachine(configuration: configuration)
    return await runVisitor(
        &machine, transport: transport, clock: clock, cancellationReason: cancellationReason, onRequest: onRequest)
}
