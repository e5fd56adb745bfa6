/// How the stages hand over: the protected API runs the waiting room, the enqueue call's
/// decision opens the queue page or passes, the queue page's ending passes, restarts or ends
/// the visitor; and the visitor's result as each stage leaves it.
extension VisitorMachine {
    mutating func takeStage() -> Stage {
        // Swapped out, not copied out and overwritten: the copy retained each reference of the
        // stage (a navigator has several) and the overwrite released them again, at every event.
        var current = Stage.transitioning
        swap(&current, &stage)
        return current
    }

    mutating func beginEnqueue(at now: RunInstant) -> Action {
        var machine = EnqueueMachine(
            parameters: enqueueParameters, platform: configuration.group.platform,
            sharedHead: configuration.sharedEnqueueHead)
        let action = machine.start(at: now)
        let followUp = machine.lastSendIsFollowUp
        stage = .enqueueing(EnqueueBox(consume machine))
        return handle(action, followUp: followUp, at: now)
    }

    mutating func handle(_ action: ProtectedApiMachine.Action, at now: RunInstant) -> Action {
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
    mutating func handle(_ action: consuming EnqueueMachine.Action, followUp: Bool, at now: RunInstant)
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

    mutating func decide(_ enqueueResult: EnqueueResult, at now: RunInstant) -> Action {
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
    mutating func handle(
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
            case .queuedOnScriptPage:
                return finish(.queued, message: Self.scriptPageCause, at: now)
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

    /// The cause of a `queued` visitor who waited on a page that advances by its own script
    /// (`QueuePageEnding.queuedOnScriptPage`): `visitors.csv`'s `error` cell and the end screen.
    package static let scriptPageCause =
        "real queue page: it advances by its own script, which queuesim does not run;"
        + " loaded once and not reloaded, as a phone does"

    /// Android 3.0.0 hands the pass over through `PendingPassStore`: saving a null token
    /// removes the stored one, so `takeToken` finds nothing and `onQueuePassed` never fires.
    static let passWithoutTokenMessage =
        "the target was reached without a queueittoken: Android's PendingPassStore drops a null token,"
        + " so onQueuePassed never fires"

    /// Safetynet or the target reached: done, or back to the protected API with the token.
    mutating func passedWaitingRoom(token: String?, at now: RunInstant) -> Action {
        guard var api = protectedApi else { return finish(.passed, message: nil, at: now) }
        stage = .protectedApi
        let action = api.queuePassed(token: token, at: now)
        protectedApi = api
        return handle(action, at: now)
    }

    mutating func finish(_ outcome: VisitorOutcome, message: String?, at now: RunInstant) -> Action {
        .finish(finishResult(outcome, message: message, at: now))
    }

    mutating func finishResult(_ outcome: VisitorOutcome, message: String?, at now: RunInstant) -> VisitorResult {
        result.outcome = outcome
        result.errorMessage = message
        result.marks.ended = now
        stage = .finished
        return result
    }
}
