/// Everything one enqueue call sends, apart from where it goes.
///
/// What a group's visitors send alike (the room's address, user agent, SDK version, layout,
/// language, platform) sits in one immutable `Common` object that a group builds once
/// (`VisitorConfiguration`); a visitor's parameters add its id, key and token. Every enqueue
/// call makes parameters, copies them into its machine and drops them later: with thirteen
/// texts held by value that was a retain and a release of each shared text each time, now of
/// one reference. Reading and setting a member works as before; setting a shared one gives
/// these parameters a `Common` of their own.
@dynamicMemberLookup
package struct EnqueueParameters: Sendable, Hashable {
    package private(set) var common: Common
    package var userId: String
    package var enqueueToken: String?
    package var enqueueKey: String?

    package init(
        address: WaitingRoomAddress, userId: String, userAgent: String, sdkVersion: String,
        layoutName: String? = nil, language: String? = nil, enqueueToken: String? = nil, enqueueKey: String? = nil,
        userIdInURL: Bool = false, platform: ClientPlatform = .ios
    ) {
        self.init(
            common: Common(
                Shared(
                    address: address, userAgent: userAgent, sdkVersion: sdkVersion, layoutName: layoutName,
                    language: language, userIdInURL: userIdInURL, platform: platform)),
            userId: userId, enqueueToken: enqueueToken, enqueueKey: enqueueKey)
    }

    package init(common: Common, userId: String, enqueueToken: String? = nil, enqueueKey: String? = nil) {
        self.common = common
        self.userId = userId
        self.enqueueToken = enqueueToken
        self.enqueueKey = enqueueKey
    }

    /// A shared member (`address`, `userAgent`, `sdkVersion`, `layoutName`, `language`,
    /// `userIdInURL`, `platform`), read and set as if it were the parameters' own.
    package subscript<Member>(dynamicMember member: WritableKeyPath<Shared, Member>) -> Member {
        get { common.shared[keyPath: member] }
        set {
            var shared = common.shared
            shared[keyPath: member] = newValue
            common = Common(shared)
        }
    }

    /// The members a group's visitors share.
    package struct Shared: Sendable, Hashable {
        package var address: WaitingRoomAddress
        package var userAgent: String
        package var sdkVersion: String
        package var layoutName: String?
        package var language: String?
        /// Android: `?userId={userId}` on the URL too (`QueueITApiClient.getApiUrl`).
        package var userIdInURL: Bool
        /// Whose stack sends the call: its headers (`PlatformHeaders.enqueue`).
        package var platform: ClientPlatform

        package init(
            address: WaitingRoomAddress, userAgent: String, sdkVersion: String, layoutName: String?,
            language: String?, userIdInURL: Bool, platform: ClientPlatform
        ) {
            self.address = address
            self.userAgent = userAgent
            self.sdkVersion = sdkVersion
            self.layoutName = layoutName
            self.language = language
            self.userIdInURL = userIdInURL
            self.platform = platform
        }
    }

    /// `Shared` behind one reference, with the body's members that follow the visitor's id
    /// (`"userAgent":…` to `"language":…`) written once: every visitor's body carries them, and
    /// a user agent has several `/` to escape. Equal by value.
    package final class Common: Sendable, Hashable {
        package let shared: Shared
        /// `,"userAgent":"…","sdkVersion":"…"` and the layout and language when set, escaped
        /// as the SDKs' writers escape them (`EnqueueRequest.bodyBytes`).
        let bodyAfterUserId: [UInt8]

        package init(_ shared: Shared) {
            self.shared = shared
            bodyAfterUserId = EnqueueRequest.sharedMembers(shared)
        }

        package static func == (lhs: Common, rhs: Common) -> Bool { lhs === rhs || lhs.shared == rhs.shared }
        package func hash(into hasher: inout Hasher) { hasher.combine(shared) }
    }
}
