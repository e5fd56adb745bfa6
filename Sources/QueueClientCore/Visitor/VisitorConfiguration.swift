/// Everything one simulated visitor needs: its group's settings and its own id, key, token
/// and invite code.
///
/// Memory: a virtual run keeps a million of these in flight. The group's settings, and what is
/// derived from them (the address, the prebuilt enqueue head, the navigator's settings), live
/// in one immutable object per group, built once; a visitor carries a reference to it and its
/// own fields. Setting `group` builds a new object; equality is by value.
package struct VisitorConfiguration: Sendable, Hashable {
    private var shared: SharedGroup
    private var own: Own
    /// Written, or made from the visitor's number by the group's `NumberedUserIds` when asked
    /// (a simulated visitor: its id is a function of the seed and its number).
    package var userId: String {
        get {
            switch own {
            case .numbered(let number):
                return madeUserId(number)
            case .boxed(let fields):
                return fields.value.writtenUserId ?? madeUserId(fields.value.number)
            }
        }
        set { changeOwn { $0.writtenUserId = newValue } }
    }

    private func madeUserId(_ number: UInt32) -> String {
        guard let userIds = shared.userIds else { preconditionFailure("a numbered visitor without user ids") }
        return userIds.userId(ofVisitor: Int(number))
    }

    /// The visitor's own fields in one word: a simulated visitor without key, token or code
    /// keeps its number (4 bytes), not its id (made again for each enqueue call, the only
    /// request that carries it on iOS); anyone else has a box.
    private enum Own: Sendable {
        case numbered(UInt32)
        case boxed(Boxed<OwnFields>)
    }

    private struct OwnFields: Sendable {
        /// Nil: the id is made from `number`.
        var writtenUserId: String?
        var number: UInt32 = 0
        var enqueueKey: String?
        var enqueueToken: String?
        var inviteCode: String?
    }

    private var ownFields: OwnFields {
        switch own {
        case .numbered(let number): OwnFields(number: number)
        case .boxed(let fields): fields.value
        }
    }

    private mutating func changeOwn(_ change: (inout OwnFields) -> Void) {
        var fields = ownFields
        change(&fields)
        let plain =
            fields.writtenUserId == nil && fields.enqueueKey == nil && fields.enqueueToken == nil
            && fields.inviteCode == nil
        own = plain ? .numbered(fields.number) : .boxed(Boxed(fields))
    }

    /// This configuration for visitor `number` of a group whose template has `NumberedUserIds`.
    package func numbered(_ number: Int) -> VisitorConfiguration {
        precondition(shared.userIds != nil, "numbered visitors need the group's user ids")
        var configuration = self
        configuration.changeOwn {
            $0.writtenUserId = nil
            $0.number = UInt32(number)
        }
        return configuration
    }

    /// The template's visitors get their ids from `userIds` (`numbered`).
    package mutating func makeUserIds(with userIds: any NumberedUserIds) {
        shared = SharedGroup(shared.settings, userIds: userIds)
    }
    package var enqueueKey: String? {
        get { ownFields.enqueueKey }
        set { changeOwn { $0.enqueueKey = newValue } }
    }
    package var enqueueToken: String? {
        get { ownFields.enqueueToken }
        set { changeOwn { $0.enqueueToken = newValue } }
    }
    /// Android's invite code (`setInviteCode`), sent as `code=` on the first queue URL.
    package var inviteCode: String? {
        get { ownFields.inviteCode }
        set { changeOwn { $0.inviteCode = newValue } }
    }

    /// `group.timeout(for:giveUpAt:)` for callers in other modules: `group` read from another
    /// module goes through its `_read` coroutine, whose frame was a heap allocation per call
    /// (the poll shortcut asks once per waiting visitor).
    package func timeout(for call: PlatformCall, giveUpAt: RunInstant) -> RequestTimeout {
        shared.settings.timeout(for: call, giveUpAt: giveUpAt)
    }

    /// A borrow, not a copy: reading one field does not copy (and retain) every string of the
    /// group (the runners read `group.requestTimeout` for every request).
    package var group: VisitorGroupSettings {
        _read { yield shared.settings }
        set { shared = SharedGroup(newValue, userIds: shared.userIds) }
    }

    /// `userIds`: a template's numbered ids (`makeUserIds`), given here so the group's shared
    /// object (its prebuilt enqueue head) is built once, not twice (2,000 groups, issue 51).
    package init(
        group: VisitorGroupSettings, userId: String, enqueueKey: String? = nil, enqueueToken: String? = nil,
        inviteCode: String? = nil, userIds: (any NumberedUserIds)? = nil
    ) {
        shared = SharedGroup(group, userIds: userIds)
        own = .boxed(
            Boxed(
                OwnFields(
                    writtenUserId: userId, enqueueKey: enqueueKey, enqueueToken: enqueueToken,
                    inviteCode: inviteCode)))
    }

    package static func == (lhs: VisitorConfiguration, rhs: VisitorConfiguration) -> Bool {
        (lhs.shared === rhs.shared || lhs.shared.settings == rhs.shared.settings) && lhs.userId == rhs.userId
            && lhs.enqueueKey == rhs.enqueueKey && lhs.enqueueToken == rhs.enqueueToken
            && lhs.inviteCode == rhs.inviteCode
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(shared.settings)
        hasher.combine(userId)
        hasher.combine(enqueueKey)
        hasher.combine(enqueueToken)
        hasher.combine(inviteCode)
    }

    /// Built once per group, not per visitor.
    package var address: WaitingRoomAddress { shared.address }

    /// The enqueue call for the configured waiting room. An enqueue token wins over a key, as
    /// the README sample picks `runWithEnqueueToken` first.
    package var enqueueParameters: EnqueueParameters {
        enqueueParameters(common: shared.enqueueCommon, enqueueToken: enqueueToken)
    }

    /// A connector's instruction (the hybrid flow) names the room, token, layout and language.
    func enqueueParameters(
        for address: WaitingRoomAddress, enqueueToken: String?, layoutName: String?, language: String?
    ) -> EnqueueParameters {
        let group = shared.settings
        let common = EnqueueParameters.Common(
            EnqueueParameters.Shared(
                address: address, userAgent: group.userAgent, sdkVersion: group.sdkVersion, layoutName: layoutName,
                language: language, userIdInURL: group.platform.sendsUserIdInURLs, platform: group.platform))
        return enqueueParameters(common: common, enqueueToken: enqueueToken)
    }

    private func enqueueParameters(common: EnqueueParameters.Common, enqueueToken: String?) -> EnqueueParameters {
        let token = enqueueToken.flatMap { $0.isEmpty ? nil : $0 }
        return EnqueueParameters(
            common: common, userId: userId, enqueueToken: token, enqueueKey: token == nil ? enqueueKey : nil)
    }

    /// The group's prebuilt enqueue head; nil on Android, whose URL carries the visitor's id.
    package var sharedEnqueueHead: EnqueueHeaderTemplate? { shared.enqueueHead }

    /// One per group, shared by all its visitors' queue page navigators.
    var sharedNavigatorSettings: QueuePageNavigator.SharedSettings { shared.navigatorSettings }
}

/// A group's settings and what derives from them, computed once when it is built.
/// Makes a simulated visitor's user id from its number (`VisitorConfiguration.numbered`).
package protocol NumberedUserIds: Sendable {
    func userId(ofVisitor number: Int) -> String
}

private final class SharedGroup: Sendable {
    let settings: VisitorGroupSettings
    let userIds: (any NumberedUserIds)?
    let address: WaitingRoomAddress
    let enqueueHead: EnqueueHeaderTemplate?
    /// The enqueue members every visitor of the group sends alike.
    let enqueueCommon: EnqueueParameters.Common
    let navigatorSettings: QueuePageNavigator.SharedSettings

    init(_ settings: VisitorGroupSettings, userIds: (any NumberedUserIds)?) {
        self.settings = settings
        self.userIds = userIds
        address = WaitingRoomAddress(
            customerId: settings.customerId, waitingRoomId: settings.waitingRoomId,
            waitingRoomDomain: settings.waitingRoomDomain, queuePathPrefix: settings.queuePathPrefix)
        enqueueHead =
            settings.platform.sendsUserIdInURLs
            ? nil : EnqueueHeaderTemplate(address: address, userAgent: settings.userAgent, platform: settings.platform)
        enqueueCommon = EnqueueParameters.Common(
            EnqueueParameters.Shared(
                address: address, userAgent: settings.userAgent, sdkVersion: settings.sdkVersion,
                layoutName: settings.layoutName, language: settings.language,
                userIdInURL: settings.platform.sendsUserIdInURLs, platform: settings.platform))
        navigatorSettings = QueuePageNavigator.SharedSettings(
            QueuePageNavigator.Settings(
                pollInterval: settings.pollInterval, maxWait: settings.maxWait, userAgent: settings.userAgent,
                platform: settings.platform, retry: settings.queuePageRetry))
    }
}
