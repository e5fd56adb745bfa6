/// Which SDK entry point a visitor uses.
public enum VisitorFlowKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `run()` / `runWithEnqueueKey` / `runWithEnqueueToken`: enqueue, then the queue page.
    case run
    /// `tryPass()` then `showQueue(queueTryPassResult:)`: the same decisions, the same outcome.
    case tryPass
    /// The hybrid KnownUser flow: the protected API first, the waiting room when it redirects.
    case protectedApi
}

/// Everything one simulated visitor needs.
///
/// Memory: a virtual run keeps a million of these in flight. The group-level settings (every
/// field but the visitor's own `userId`, `enqueueKey` and `enqueueToken`) live in one shared,
/// immutable box per group template, copied only when a group-level field is set; so a visitor
/// carries 56 bytes of configuration instead of about 250. Value semantics are unchanged.
public struct VisitorConfiguration: Sendable, Hashable {
    private var group: GroupSettings
    public var userId: String
    public var enqueueKey: String?
    public var enqueueToken: String?
    /// Android's invite code (`setInviteCode`), sent as `code=` on the first queue URL.
    public var inviteCode: String?

    public var customerId: String {
        get { group.fields.customerId }
        set { group.modify { $0.customerId = newValue } }
    }
    public var waitingRoomId: String {
        get { group.fields.waitingRoomId }
        set { group.modify { $0.waitingRoomId = newValue } }
    }
    public var waitingRoomDomain: String? {
        get { group.fields.waitingRoomDomain }
        set { group.modify { $0.waitingRoomDomain = newValue } }
    }
    public var queuePathPrefix: String? {
        get { group.fields.queuePathPrefix }
        set { group.modify { $0.queuePathPrefix = newValue } }
    }
    public var layoutName: String? {
        get { group.fields.layoutName }
        set { group.modify { $0.layoutName = newValue } }
    }
    public var language: String? {
        get { group.fields.language }
        set { group.modify { $0.language = newValue } }
    }
    /// Sent as the body's `userAgent`, the `User-Agent` header and the queue page's user agent.
    public var userAgent: String {
        get { group.fields.userAgent }
        set { group.modify { $0.userAgent = newValue } }
    }
    public var sdkVersion: String {
        get { group.fields.sdkVersion }
        set { group.modify { $0.sdkVersion = newValue } }
    }
    /// The SDK the visitor behaves like: where its requests, retries and decisions differ.
    public var platform: ClientPlatform {
        get { group.fields.platform }
        set { group.modify { $0.platform = newValue } }
    }
    /// What a failed queue page load does (the platform's unless chosen).
    public var queuePageRetry: QueuePageRetry {
        get { group.fields.queuePageRetry }
        set { group.modify { $0.queuePageRetry = newValue } }
    }
    public var requestTimeout: Duration {
        get { group.fields.requestTimeout }
        set { group.modify { $0.requestTimeout = newValue } }
    }
    /// Queue page poll interval when the server sends no `Retry-After`.
    public var pollInterval: Duration {
        get { group.fields.pollInterval }
        set { group.modify { $0.pollInterval = newValue } }
    }
    /// Measured from queue entry: still in the queue after it → `queued`.
    public var maxWait: Duration {
        get { group.fields.maxWait }
        set { group.modify { $0.maxWait = newValue } }
    }
    /// `queueit://restartSession` re-runs the visitor at most this often; one more → `restarted`.
    public var maxRestarts: Int {
        get { group.fields.maxRestarts }
        set { group.modify { $0.maxRestarts = newValue } }
    }
    public var flow: VisitorFlowKind {
        get { group.fields.flow }
        set { group.modify { $0.flow = newValue } }
    }
    /// The KnownUser-protected API URL (required for `.protectedApi`).
    public var protectedApiURL: String? {
        get { group.fields.protectedApiURL }
        set { group.modify { $0.protectedApiURL = newValue } }
    }

    public init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil, queuePathPrefix: String? = nil,
        layoutName: String? = nil, language: String? = nil, enqueueKey: String? = nil, enqueueToken: String? = nil,
        userId: String, userAgent: String, sdkVersion: String, requestTimeout: Duration = .seconds(10),
        pollInterval: Duration = .seconds(2), maxWait: Duration = .seconds(30 * 60), maxRestarts: Int = 1,
        flow: VisitorFlowKind = .run, protectedApiURL: String? = nil, platform: ClientPlatform = .ios,
        queuePageRetry: QueuePageRetry? = nil, inviteCode: String? = nil
    ) {
        group = GroupSettings(
            GroupSettings.Fields(
                customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: waitingRoomDomain,
                queuePathPrefix: queuePathPrefix, layoutName: layoutName, language: language, userAgent: userAgent,
                sdkVersion: sdkVersion, requestTimeout: requestTimeout, pollInterval: pollInterval, maxWait: maxWait,
                maxRestarts: maxRestarts, flow: flow, protectedApiURL: protectedApiURL, platform: platform,
                queuePageRetry: queuePageRetry ?? platform.queuePageRetry))
        self.userId = userId
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.inviteCode = inviteCode
    }

    /// Built once per group (in the group's box), not per visitor.
    public var address: WaitingRoomAddress { group.address }

    /// The enqueue call for the configured waiting room. An enqueue token wins over a key, as
    /// the README sample picks `runWithEnqueueToken` first.
    public var enqueueParameters: EnqueueParameters {
        enqueueParameters(for: address, enqueueToken: enqueueToken, layoutName: layoutName, language: language)
    }

    func enqueueParameters(
        for address: WaitingRoomAddress, enqueueToken: String?, layoutName: String?, language: String?
    ) -> EnqueueParameters {
        let token = enqueueToken.flatMap { $0.isEmpty ? nil : $0 }
        var parameters = EnqueueParameters(
            address: address, userId: userId, userAgent: userAgent, sdkVersion: sdkVersion, layoutName: layoutName,
            language: language, enqueueToken: token, enqueueKey: token == nil ? enqueueKey : nil,
            userIdInURL: platform.sendsUserIdInURLs)
        // Android's URL carries the visitor's id: no head is shared by the group.
        if !platform.sendsUserIdInURLs { parameters.headerTemplate = group.enqueueHeaders }
        return parameters
    }

    /// One box per group, shared by all its visitors' queue page navigators.
    var sharedNavigatorSettings: QueuePageNavigator.SharedSettings { group.sharedNavigatorSettings }
}

/// The shared, copy-on-write box of a configuration's group-level fields. Equality and hashing
/// look at the fields, never at the box's identity.
private struct GroupSettings: Sendable, Hashable {
    struct Fields: Sendable, Hashable {
        var customerId: String
        var waitingRoomId: String
        var waitingRoomDomain: String?
        var queuePathPrefix: String?
        var layoutName: String?
        var language: String?
        var userAgent: String
        var sdkVersion: String
        var requestTimeout: Duration
        var pollInterval: Duration
        var maxWait: Duration
        var maxRestarts: Int
        var flow: VisitorFlowKind
        var protectedApiURL: String?
        var platform: ClientPlatform
        var queuePageRetry: QueuePageRetry
    }

    private final class Box: Sendable {
        let fields: Fields
        let sharedNavigatorSettings: QueuePageNavigator.SharedSettings
        let address: WaitingRoomAddress
        let enqueueHeaders: EnqueueHeaderTemplate
        init(_ fields: Fields) {
            self.fields = fields
            address = WaitingRoomAddress(
                customerId: fields.customerId, waitingRoomId: fields.waitingRoomId,
                waitingRoomDomain: fields.waitingRoomDomain, queuePathPrefix: fields.queuePathPrefix)
            enqueueHeaders = EnqueueHeaderTemplate(address: address, userAgent: fields.userAgent)
            sharedNavigatorSettings = QueuePageNavigator.SharedSettings(
                QueuePageNavigator.Settings(
                    pollInterval: fields.pollInterval, maxWait: fields.maxWait, userAgent: fields.userAgent,
                    platform: fields.platform, retry: fields.queuePageRetry))
        }
    }

    private var box: Box

    init(_ fields: Fields) { box = Box(fields) }

    var fields: Fields { box.fields }
    var sharedNavigatorSettings: QueuePageNavigator.SharedSettings { box.sharedNavigatorSettings }
    var address: WaitingRoomAddress { box.address }
    var enqueueHeaders: EnqueueHeaderTemplate { box.enqueueHeaders }

    mutating func modify(_ change: (inout Fields) -> Void) {
        var fields = box.fields
        change(&fields)
        box = Box(fields)
    }

    static func == (lhs: GroupSettings, rhs: GroupSettings) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }
}
