import Foundation
import QueueClientCore

// The scenario model (Scenario.swift): the embedded room (`waitingRoom:`).

package enum RoomMode: String, Sendable, Equatable, CaseIterable {
    case queue
    case safetynet
    case disabled
    case idle
    case afterevent
}

/// The room's endpoints a fault can target.
package enum RoomEndpoint: String, Sendable, Equatable, CaseIterable {
    case enqueue
    case queuePage
    case protectedApi
    case any
}

package struct LatencySettings: Sendable, Equatable {
    package var enqueue: Duration
    package var queuePage: Duration
    package var protectedApi: Duration
    /// Uniform ± jitter added to every modelled latency (seeded).
    package var jitter: Duration

    package init(
        enqueue: Duration = .zero, queuePage: Duration = .zero, protectedApi: Duration = .zero,
        jitter: Duration = .zero
    ) {
        self.enqueue = enqueue
        self.queuePage = queuePage
        self.protectedApi = protectedApi
        self.jitter = jitter
    }
}

/// What a scripted fault does to a matching request.
package enum FaultEffect: Sendable, Equatable {
    /// Answer with this status and a JSON error body.
    case status(Int)
    /// Add this latency (± jitter) before answering normally.
    case latency(Duration, jitter: Duration)
    /// Close the connection without an answer.
    case reset
    /// Never answer (the client's request timeout fires).
    case timeout
    /// Answer 200 with a body that is not JSON.
    case malformedBody
    /// Queue page only: redirect to `queueit://close` or `queueit://restartSession`.
    case navigate(QueuePageNavigation)
    /// Switch the room's mode for the window (`to` absent: for the rest of the run).
    case mode(RoomMode)
}

package enum QueuePageNavigation: String, Sendable, Equatable, CaseIterable {
    case close
    case restartSession
}

package struct FaultRule: Sendable, Equatable {
    package var from: Duration
    /// nil: until the end of the run.
    package var to: Duration?
    package var endpoint: RoomEndpoint
    /// Share of matching requests hit, 0...1 (seeded per request). Ignored for `mode`.
    package var rate: Double
    package var effect: FaultEffect

    package init(
        from: Duration = .zero, to: Duration? = nil, endpoint: RoomEndpoint = .any, rate: Double = 1,
        effect: FaultEffect
    ) {
        self.from = from
        self.to = to
        self.endpoint = endpoint
        self.rate = rate
        self.effect = effect
    }
}

/// `waitingRoom.abandonedTurns`: what the room does with the turn of a visitor who left the
/// queue page (it stopped polling). docs/waiting-room.md gives the source.
package enum AbandonedTurns: String, Sendable, Equatable, CaseIterable {
    /// Queue-it's: the queue number is reached in its turn and released anyway; nobody uses it
    /// (the monitor's "Unused Queue Numbers"), and that release counts against the outflow.
    case wasted
    /// The room drops a visitor it has not heard from for `WaitingRoomModel.silenceBeforeGone`
    /// when its turn comes: the turn goes to the next visitor, the queue drains faster.
    case skipped
}

/// `waitingRoom.safetyNet`: which of Queue-it's SafetyNet variants the room's `safetynet` mode
/// plays. Their exact rules are not public; docs/waiting-room.md gives the reading of each.
package enum SafetyNetVariant: String, Sendable, Equatable, CaseIterable {
    /// `RelaxedProtectionAndQueueSequence` ("SafetyNet normal"): pass through while the trailing
    /// 60 s arrivals are at most a minute's outflow and nobody waits.
    case normal
    /// `ProtectionAndQueueSequence` ("burst protection"): a pass-through takes a turn of the
    /// smooth outflow, so the target never sees more than the outflow.
    case burst
    /// `OutputThroughput` ("mixed mode"): pass through while nobody waits and the trailing 60 s
    /// redirects (pass-throughs and queue turns) are fewer than a minute's outflow.
    case mixed
}

/// A PEM certificate (chain) and its private key, as paths.
package struct RoomTLSFiles: Sendable, Equatable {
    package var certificate: String
    package var key: String

    package init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

package struct WaitingRoomSettings: Sendable, Equatable {
    /// Queue-it's default "max redirects per queue id", the room's when the scenario says none.
    package static let defaultMaxRedirectsPerQueueId = 3
    /// `waitingRoom.queueNumberValidity`'s range (Queue-it's `QueueNumberValidityInMinutes`, 5–60).
    package static let queueNumberValidityRange: ClosedRange<Duration> = .seconds(5 * 60) ... .seconds(60 * 60)
    /// `waitingRoom.maxRedirectsPerQueueId`'s range (Queue-it's `MaxNoOfRedirectsPrQueueId`).
    package static let maxRedirectsPerQueueIdRange = 1...20

    package var mode: RoomMode
    /// The `safetynet` mode's variant.
    package var safetyNet: SafetyNetVariant = .normal
    /// How long a queue number stays valid once its turn came: a visitor who comes for its
    /// redirect later loses the turn. nil: for ever.
    package var queueNumberValidity: Duration?
    /// How often one queue id may be redirected to the target (the queue page's `302`s and a
    /// pass-through token each count one).
    package var maxRedirectsPerQueueId = WaitingRoomSettings.defaultMaxRedirectsPerQueueId
    /// Invite-only: an enqueue key admits one enqueue; a second with the same key is refused.
    package var uniqueKeys = false
    /// What the turn of a visitor who left costs the outflow.
    package var abandonedTurns: AbandonedTurns = .wasted
    package var eventStart: Duration
    /// Max redirects per minute, as a per-second rate: the rate from the run's start.
    package var outflowPerSecond: Double
    /// A scheduled outflow's later rates, in time order (`OutflowSchedule.swift`); empty for a
    /// plain rate.
    package var outflowChanges: [OutflowChange] = []
    package var secretKey: String
    package var tokenValidity: Duration
    package var inviteOnly: Bool
    /// Known enqueue keys for invite-only rooms.
    package var enqueueKeys: CSVFeeder?
    /// Invite codes an invite-only room admits on its queue page (`code=`, Android's SDK).
    package var inviteCodes: [String]
    package var latency: LatencySettings
    package var faults: [FaultRule]
    /// `waitingRoom.tls`: the wall-clock room serves HTTPS with this certificate and key (paths
    /// resolved against the scenario's folder, checked as a pair when the scenario is loaded).
    package var tls: RoomTLSFiles?

    package init(
        mode: RoomMode = .queue, eventStart: Duration = .zero, outflowPerSecond: Double = 10,
        secretKey: String = "dev-secret", tokenValidity: Duration = .seconds(180), inviteOnly: Bool = false,
        enqueueKeys: CSVFeeder? = nil, inviteCodes: [String] = [], latency: LatencySettings = LatencySettings(),
        faults: [FaultRule] = []
    ) {
        self.inviteCodes = inviteCodes
        self.mode = mode
        self.eventStart = eventStart
        self.outflowPerSecond = outflowPerSecond
        self.secretKey = secretKey
        self.tokenValidity = tokenValidity
        self.inviteOnly = inviteOnly
        self.enqueueKeys = enqueueKeys
        self.latency = latency
        self.faults = faults
    }
}
