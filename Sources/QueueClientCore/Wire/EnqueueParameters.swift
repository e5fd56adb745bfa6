/// Everything one enqueue call sends, apart from where it goes.
package struct EnqueueParameters: Sendable, Hashable {
    package var address: WaitingRoomAddress
    package var userId: String
    package var userAgent: String
    package var sdkVersion: String
    package var layoutName: String?
    package var language: String?
    package var enqueueToken: String?
    package var enqueueKey: String?
    /// Android: `?userId={userId}` on the URL too (`QueueITApiClient.getApiUrl`).
    package var userIdInURL: Bool
    /// Whose stack sends the call: its headers (`PlatformHeaders.enqueue`).
    package var platform: ClientPlatform

    package init(
        address: WaitingRoomAddress, userId: String, userAgent: String, sdkVersion: String,
        layoutName: String? = nil, language: String? = nil, enqueueToken: String? = nil, enqueueKey: String? = nil,
        userIdInURL: Bool = false, platform: ClientPlatform = .ios
    ) {
        self.userIdInURL = userIdInURL
        self.platform = platform
        self.address = address
        self.userId = userId
        self.userAgent = userAgent
        self.sdkVersion = sdkVersion
        self.layoutName = layoutName
        self.language = language
        self.enqueueToken = enqueueToken
        self.enqueueKey = enqueueKey
    }

}
