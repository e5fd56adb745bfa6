/// One simulated visitor: the enqueue machine, the queue page navigator and (for the hybrid
/// flow) the protected API machine, composed into one small value with no I/O and no clock.
///
/// Both the tests' wall-clock driver (`runVisitor`, Tests/VisitorDriver) and the simulator's
/// virtual-time loop feed it events and carry out its actions. Cookies (queue page and
/// protected API) live inside it.
package struct VisitorMachine: Sendable {
    package enum Action: Sendable, Equatable {
        case send(OutgoingRequest, timeout: RequestTimeout)
        case wait(until: RunInstant)
        case finish(VisitorResult)
    }

    private enum Stage: Sendable {
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
    private var stage: Stage = .notStarted
    /// The hybrid flow's parts and the queue page's cookies between visits, in one box: a
    /// visitor with none of them (most of a virtual run's) pays one word for all three.
    private var hybrid: Boxed<Hybrid>?
    private var result: VisitorResult

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
            var api = ProtectedApiMachine(apiURL: url, userAgent: configuration.group.userAgent)
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

    /// While the visitor waits to poll the queue page again: the page it will load and when
    /// its `maxWait` runs out. Nil in every other state (enqueueing, loading, waiting out
    /// `maxWait`, finished). The virtual-time driver reads it to skip polls whose answers it
    /// can compute exactly.
    package var pendingQueuePagePoll: (url: SimpleURL, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isWaitingToPoll else { return nil }
        return (navigator.currentURL, navigator.maxWaitEnds)
    }

    /// While a queue-page load is in flight: the page and when `maxWait` runs out. Nil in every
    /// other state. The virtual-time driver reads it to answer the load without the room when
    /// the answer is known exactly.
    package var queuePageLoadInFlight: (url: SimpleURL, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isLoading else { return nil }
        return (navigator.currentURL, navigator.maxWaitEnds)
    }

    /// `pendingQueuePagePoll` and `queuePageLoadInFlight` with the page's queue id (its `q`)
    /// instead of the page: what the virtual driver's forecast needs, without making the URL.
    package var pendingQueuePagePollQueueId: (queueId: PageQueueId?, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isWaitingToPoll else { return nil }
        return (navigator.currentQueueIdReference, navigator.maxWaitEnds)
    }

    package var queuePageLoadInFlightQueueId: (queueId: PageQueueId?, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isLoading else { return nil }
        return (navigator.currentQueueIdReference, navigator.maxWaitEnds)
    }

    /// Accounts for the answer to the queue-page load in flight, known without handing the
    /// request over: a 2xx "keep waiting" whose `Retry-After` makes the next poll due at
    /// `nextPollAt` (the driver calls `waited` then). The result is the one `received` would
    /// have left. Only valid while `queuePageLoadInFlight` is non-nil.
    package mutating func answerQueuePageLoad(with status: Int = 200, nextPollAt: RunInstant) {
        guard case .inQueue(var navigator) = takeStage() else {
            preconditionFailure("VisitorMachine.answerQueuePageLoad called outside the queue page")
        }
        navigator.answerLoadInFlight(with: status, nextPollAt: nextPollAt)
        stage = .inQueue(navigator)
        result.lastHTTPStatus = status
    }

    /// Accounts for `count` queue-page polls the driver did not carry out one by one: each was
    /// sent (a request and a poll in the result) and answered `status`, a 2xx "keep waiting";
    /// the next poll is due at `nextPollAt`, when the driver calls `waited`. The result is the
    /// one the visitor would have had after sending them. Only valid while
    /// `pendingQueuePagePoll` is non-nil.
    package mutating func skipPolls(_ count: Int, answeredWith status: Int = 200, nextPollAt: RunInstant) {
        guard case .inQueue(var navigator) = takeStage() else {
            preconditionFailure("VisitorMachine.skipPolls called outside the queue page")
        }
        navigator.skipPolls(count, answeredWith: status, nextPollAt: nextPollAt)
        stage = .inQueue(navigator)
        guard count > 0 else { return }
        result.polls += count
        result.requests += count
        result.lastHTTPStatus = status
    }

    /// Ends the visitor from outside. `.runEnded`: in the queue → `queued`, otherwise
    /// `interrupted`; `.interrupted` (SIGINT): `interrupted`. A finished visitor keeps its result.
    package mutating func stop(at now: RunInstant, reason: StopReason) -> VisitorResult {
        switch stage {
        case .finished:
            return result
        case .inQueue where reason == .runEnded:
            return finishResult(.queued, message: nil, at: now)
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

    // MARK: - Composition

    private struct Hybrid: Sendable {
        /// Present in the `.protectedApi` flow; parked while the visitor is in the waiting room.
        var protectedApi: ProtectedApiMachine?
        /// The connector's redirect, which replaces the configured waiting room.
        var redirectInstruction: QueueRedirectInstruction?
        /// The WebView's cookies, kept from one queue page visit to the next (a restart): the
        /// SDK does not clear them. The navigator holds them during a visit.
        var queueCookies = CookieJar()
        var isEmpty: Bool { protectedApi == nil && redirectInstruction == nil && queueCookies.isEmpty }
    }

    private var queueCookies: CookieJar {
        get { hybrid?.value.queueCookies ?? CookieJar() }
        set {
            // No box for an empty jar that had none.
            guard hybrid != nil || !newValue.isEmpty else { return }
            setHybrid { $0.queueCookies = newValue }
        }
    }

    private var protectedApi: ProtectedApiMachine? {
        get { hybrid?.value.protectedApi }
        set { setHybrid { $0.protectedApi = newValue } }
    }

    private var redirectInstruction: QueueRedirectInstruction? {
        get { hybrid?.value.redirectInstruction }
        set { setHybrid { $0.redirectInstruction = newValue } }
    }

    private mutating func setHybrid(_ change: (inout Hybrid) -> Void) {
        hybrid = .updating(hybrid, empty: Hybrid(), isEmpty: \.isEmpty, change)
    }

    /// The waiting room the enqueue call goes to (without building the whole call).
    private var enqueueAddress: WaitingRoomAddress {
        redirectInstruction?.address ?? configuration.address
    }

    /// The enqueue call for this run: the connector's waiting room, else the configured one.
    private var enqueueParameters: EnqueueParameters {
        guard let instruction = redirectInstruction else { return configuration.enqueueParameters }
        return configuration.enqueueParameters(
            for: instruction.address, enqueueToken: instruction.enqueueToken ?? configuration.enqueueToken,
            layoutName: instruction.layoutName ?? configuration.group.layoutName,
            language: instruction.language ?? configuration.group.language)
    }

    /// The enqueue stage's machine on the heap, changed in place: an indirect enum case was
    /// copied out of its box and boxed anew at every event (an allocation, and a retain and
    /// release of each of the machine's references). Value semantics hold: a box that a copy of
    /// this machine shares is copied before it is changed (`makeUnique`).
    private final class EnqueueBox: @unchecked Sendable {
        var machine: EnqueueMachine
        init(_ machine: EnqueueMachine) { self.machine = machine }

        static func makeUnique(_ box: inout EnqueueBox) {
            if !isKnownUniquelyReferenced(&box) { box = EnqueueBox(box.machine) }
        }
    }

    private mutating func takeStage() -> Stage {
        // Swapped out, not copied out and overwritten: the copy retained each reference of the
        // stage (a navigator has several) and the overwrite released them again, at every event.
        var current = Stage.transitioning
        swap(&current, &stage)
        return current
    }

    private mutating func beginEnqueue(at now: RunInstant) -> Action {
        var machine = EnqueueMachine(
            parameters: enqueueParameters, platform: configuration.group.platform,
            sharedHead: configuration.sharedEnqueueHead)
        let action = machine.start(at: now)
        let followUp = machine.lastSendIsFollowUp
        stage = .enqueueing(EnqueueBox(consume machine))
        return handle(action, followUp: followUp, at: now)
    }

    private mutating func handle(_ action: ProtectedApiMachine.Action, at now: RunInstant) -> Action {
        switch action {
        case .send(let request):
            result.requests += 1
            return .send(request, timeout: configuration.group.timeout(for: .protectedApi, giveUpAt: now))
        case .runWaitingRoom(let instruction):
            redirectInstruction = instruction
            return beginEnqueue(at: now)
        case .finish(.reached):
            return finish(.passed, message: nil, at: now)
        case .finish(.failed(let status, let message)):
            if let status { result.lastHTTPStatus = status }
            return finish(.error, message: message, at: now)
        }
    }

    /// `followUp`: the enqueue machine's `lastSendIsFollowUp` (passed alone: a copy of the
    /// machine would retain and release each of its references).
    private mutating func handle(_ action: consuming EnqueueMachine.Action, followUp: Bool, at now: RunInstant)
        -> Action
    {
        // Consumed: the request moves into the visitor's action instead of being copied (a
        // retain and a release of each of its references).
        switch consume action {
        case .send(let request):
            result.requests += 1
            if !followUp { result.attempts += 1 }
            return .send(request, timeout: configuration.group.timeout(for: .enqueue, giveUpAt: now))
        case .wait(let deadline):
            return .wait(until: deadline)
        case .finish(let enqueueResult):
            result.marks.enqueueDecided = now
            return decide(enqueueResult, at: now)
        }
    }

    private mutating func decide(_ enqueueResult: EnqueueResult, at now: RunInstant) -> Action {
        switch enqueueResult {
        case .error(let status, let message):
            result.lastHTTPStatus = status
            return finish(.error, message: message, at: now)
        case .unavailable(let lastStatus, let reason):
            result.lastHTTPStatus = lastStatus
            return finish(.unavailable, message: reason, at: now)
        case .decided(let tryPass, let queueId):
            // A known type is the token's `rt` text exactly (`RedirectType(bytes:)`), or `queue`
            // without a token: only `unknown` needs the token read again for its text.
            if tryPass.redirectType == .unknown {
                result.redirectType = QueueTryPassResult.reportedRedirectType(token: tryPass.queueToken)
            } else {
                result.setRedirectType(tryPass.redirectType)
            }
            result.queueId = queueId
            result.queueitToken = tryPass.queueToken
            switch tryPass.redirectType.engineDecision {
            case .passed:
                return passedWaitingRoom(token: tryPass.queueToken, at: now)
            case .disabled:
                // The hybrid flow presents the token to the API in these modes too, as the
                // Android demo app does (the connector accepts it); the row keeps the redirect
                // type, so a disabled pass stays apart from a queue pass.
                guard protectedApi != nil else { return finish(.disabled, message: nil, at: now) }
                return passedWaitingRoom(token: tryPass.queueToken, at: now)
            case .showQueue:
                guard
                    var navigator = QueuePageNavigator(
                        tryPass: tryPass, queuePathPrefix: enqueueAddress.queuePathPrefix,
                        sharedSettings: configuration.sharedNavigatorSettings, cookies: queueCookies,
                        // Only Android writes it into queue URLs: iOS visitors' ids (made from
                        // their numbers) are not made for nothing.
                        userId: configuration.sharedNavigatorSettings.settings.platform.sendsUserIdInURLs
                            ? configuration.userId : nil,
                        inviteCode: configuration.inviteCode)
                else {
                    return finish(.error, message: "Failed to load the queue: missing queue or target URL", at: now)
                }
                result.marks.queueEntered = now
                let action = navigator.start(at: now)
                let maxWaitEnds = navigator.maxWaitEnds
                stage = .inQueue(navigator)
                return handle(action, maxWaitEnds: maxWaitEnds, at: now)
            }
        }
    }

    /// Carries out the action of the navigator in `stage`; `maxWaitEnds` is its own (passed
    /// alone: a copy of the navigator would retain and release each of its references).
    private mutating func handle(
        _ action: consuming QueuePageNavigator.Action, maxWaitEnds: RunInstant, at now: RunInstant
    ) -> Action {
        switch consume action {
        case .send(let request, _):
            result.requests += 1
            result.polls += 1
            return .send(request, timeout: configuration.group.timeout(for: .queuePage, giveUpAt: maxWaitEnds))
        case .wait(let deadline):
            return .wait(until: deadline)
        case .finish(let ending):
            if case .inQueue(let navigator) = stage { queueCookies = navigator.cookies }
            switch ending {
            case .passed(let token):
                result.queueitToken = token
                guard token != nil || configuration.group.platform.passesWithoutToken else {
                    return finish(.error, message: Self.passWithoutTokenMessage, at: now)
                }
                return passedWaitingRoom(token: token, at: now)
            case .closed:
                return finish(.closed, message: nil, at: now)
            case .queued:
                return finish(.queued, message: nil, at: now)
            case .sslError(let message), .loadFailed(let message):
                return finish(.error, message: message, at: now)
            case .restartSession:
                result.restarts += 1
                guard result.restarts <= configuration.group.maxRestarts else {
                    return finish(.restarted, message: nil, at: now)
                }
                return beginEnqueue(at: now)
            }
        }
    }

    /// Android 3.0.0 hands the pass over through `PendingPassStore`: saving a null token
    /// removes the stored one, so `takeToken` finds nothing and `onQueuePassed` never fires.
    static let passWithoutTokenMessage =
        "the target was reached without a queueittoken: Android's PendingPassStore drops a null token,"
        + " so onQueuePassed never fires"

    /// Safetynet or the target reached: done, or back to the protected API with the token.
    private mutating func passedWaitingRoom(token: String?, at now: RunInstant) -> Action {
        guard var api = protectedApi else { return finish(.passed, message: nil, at: now) }
        stage = .protectedApi
        let action = api.queuePassed(token: token, at: now)
        protectedApi = api
        return handle(action, at: now)
    }

    private mutating func finish(_ outcome: VisitorOutcome, message: String?, at now: RunInstant) -> Action {
        .finish(finishResult(outcome, message: message, at: now))
    }

    private mutating func finishResult(_ outcome: VisitorOutcome, message: String?, at now: RunInstant) -> VisitorResult
    {
        result.outcome = outcome
        result.errorMessage = message
        result.marks.ended = now
        stage = .finished
        return result
    }
}

/// Heap storage for values most visitors never need, keeping `VisitorMachine` small.
/// An indirect enum, not a class: the value semantics stay intact.
package indirect enum Boxed<Value: Sendable>: Sendable {
    case boxed(Value)

    package init(_ value: Value) { self = .boxed(value) }

    /// `box`'s value (or `empty` when there is none) changed by `change`, boxed again; nil
    /// when the result `isEmpty`, so a visitor without the rare fields pays one word.
    package static func updating(
        _ box: Boxed?, empty: Value, isEmpty: (Value) -> Bool, _ change: (inout Value) -> Void
    ) -> Boxed? {
        var value = box?.value ?? empty
        change(&value)
        return isEmpty(value) ? nil : Boxed(value)
    }

    package var value: Value {
        switch self {
        case .boxed(let value): value
        }
    }
}
