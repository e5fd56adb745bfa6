/// One simulated visitor: the enqueue machine, the queue page navigator and (for the hybrid
/// flow) the protected API machine, composed into one small value with no I/O and no clock.
///
/// Both the tests' wall-clock driver (`runVisitor`, Tests/VisitorDriver) and the simulator's
/// virtual-time loop feed it events and carry out its actions. Cookies (queue page and
/// protected API) live inside it.
///
/// Its files, by concern: this one holds the events a driver feeds it; `+Stages` how one
/// stage's ending starts the next (enqueue, queue page, protected API) and the visitor's
/// result; `+Hybrid` the rarely used parts kept in one box (the protected API, the connector's
/// redirect, the queue page's cookies) and the boxed enqueue machine; `+DriverShortcuts` the
/// queue page answers a virtual-time driver accounts for without sending them.
package struct VisitorMachine: Sendable {
    package enum Action: Sendable, Equatable {
        case send(OutgoingRequest, timeout: RequestTimeout)
        case wait(until: RunInstant)
        case finish(VisitorResult)
    }

    enum Stage: Sendable {
        case notStarted
        case protectedApi
        /// Boxed: the enqueue machine (its parameters) is the largest stage, and a virtual run
        /// keeps every waiting visitor's machine in memory — at the queue page's size.
        case enqueueing(EnqueueBox)
        case inQueue(QueuePageNavigator)
        /// Its result is `result`, which no longer changes.
        case finished
        /// Placeholder while a sub-machine is taken out to be mutated (avoids a copy).
        case transitioning
    }

    package let configuration: VisitorConfiguration
    var stage: Stage = .notStarted
    /// The hybrid flow's parts and the queue page's cookies between visits, in one box: a
    /// visitor with none of them (most of a virtual run's) pays one word for all three.
    var hybrid: Boxed<Hybrid>?
    var result: VisitorResult

    package init(configuration: VisitorConfiguration) {
        self.configuration = configuration
        self.result = VisitorResult(outcome: .interrupted, marks: VisitorMarks(started: .origin, ended: .origin))
    }

    package var phase: VisitorPhase {
        switch stage {
        case .notStarted: .notStarted
        case .protectedApi: .protectedApi
        case .enqueueing: .enqueueing
        case .inQueue: .inQueue
        case .finished, .transitioning: .finished
        }
    }

    /// `phase`, for a caller that holds the machine in place (an engine's slot): a mutating
    /// call lends the machine by reference, where reading `phase` from another module made a
    /// copy of the whole machine (181 bytes) first, twice per event. Changes nothing.
    package mutating func readPhase() -> VisitorPhase { phase }

    package mutating func start(at now: RunInstant) -> Action {
        guard case .notStarted = stage else { preconditionFailure("VisitorMachine.start called twice") }
        result.marks = VisitorMarks(started: now, ended: now)
        guard configuration.group.flow == .protectedApi else { return beginEnqueue(at: now) }
        guard let url = configuration.group.protectedApiURL,
            var api = ProtectedApiMachine(apiURL: url, group: configuration.group)
        else {
            return finish(.error, message: "the protectedApi flow needs a valid protectedApi URL", at: now)
        }
        stage = .protectedApi
        let action = api.start(at: now)
        protectedApi = api
        return handle(action, at: now)
    }

    package mutating func received(_ response: IncomingResponse, at now: RunInstant) -> Action {
        result.lastHTTPStatus = response.status.code
        switch takeStage() {
        case .protectedApi:
            guard var api = protectedApi else { preconditionFailure("protected API stage without its machine") }
            stage = .protectedApi
            let action = api.received(response, at: now)
            protectedApi = api
            return handle(action, at: now)
        case .enqueueing(var box):
            EnqueueBox.makeUnique(&box)
            let action = box.machine.received(response, at: now)
            let followUp = box.machine.lastSendIsFollowUp
            stage = .enqueueing(box)
            return handle(action, followUp: followUp, at: now)
        case .inQueue(var navigator):
            let action = navigator.received(response, at: now)
            let maxWaitEnds = navigator.maxWaitEnds
            stage = .inQueue(navigator)
            return handle(action, maxWaitEnds: maxWaitEnds, at: now)
        case .notStarted, .finished, .transitioning:
            preconditionFailure("VisitorMachine received a response with nothing in flight")
        }
    }

    package mutating func failed(_ error: TransportError, at now: RunInstant) -> Action {
        switch takeStage() {
        case .protectedApi:
            guard var api = protectedApi else { preconditionFailure("protected API stage without its machine") }
            stage = .protectedApi
            let action = api.failed(error, at: now)
            protectedApi = api
            return handle(action, at: now)
        case .enqueueing(var box):
            EnqueueBox.makeUnique(&box)
            let action = box.machine.failed(error, at: now)
            let followUp = box.machine.lastSendIsFollowUp
            stage = .enqueueing(box)
            return handle(action, followUp: followUp, at: now)
        case .inQueue(var navigator):
            let action = navigator.failed(error, at: now)
            let maxWaitEnds = navigator.maxWaitEnds
            stage = .inQueue(navigator)
            return handle(action, maxWaitEnds: maxWaitEnds, at: now)
        case .notStarted, .finished, .transitioning:
            preconditionFailure("VisitorMachine got a transport error with nothing in flight")
        }
    }

    package mutating func waited(at now: RunInstant) -> Action {
        switch takeStage() {
        case .enqueueing(var box):
            EnqueueBox.makeUnique(&box)
            let action = box.machine.waited(at: now)
            let followUp = box.machine.lastSendIsFollowUp
            stage = .enqueueing(box)
            return handle(action, followUp: followUp, at: now)
        case .inQueue(var navigator):
            let action = navigator.waited(at: now)
            let maxWaitEnds = navigator.maxWaitEnds
            stage = .inQueue(navigator)
            return handle(action, maxWaitEnds: maxWaitEnds, at: now)
        case .notStarted, .protectedApi, .finished, .transitioning:
            preconditionFailure("VisitorMachine.waited called while not waiting")
        }
    }

    /// Ends the visitor from outside. `.runEnded`: in the queue → `queued`, otherwise
    /// `interrupted`; `.interrupted` (SIGINT): `interrupted`. A finished visitor keeps its result.
    package mutating func stop(at now: RunInstant, reason: StopReason) -> VisitorResult {
        switch stage {
        case .finished:
            return result
        case .inQueue(let navigator) where reason == .runEnded:
            return finishResult(.queued, message: navigator.isOnScriptPage ? Self.scriptPageCause : nil, at: now)
        case .notStarted, .protectedApi, .enqueueing, .inQueue, .transitioning:
            return finishResult(.interrupted, message: nil, at: now)
        }
    }

    /// The visitor closes the app (its patience ran out): it sends nothing more, and an answer
    /// in flight is never read. A finished visitor keeps its result.
    package mutating func abandon(at now: RunInstant) -> VisitorResult {
        if case .finished = stage { return result }
        return finishResult(.abandoned, message: nil, at: now)
    }
}
