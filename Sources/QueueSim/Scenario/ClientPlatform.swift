/// Which Queue-it mobile SDK a visitor group behaves like (`client.platform`).
///
/// The SDKs differ in what they send and how they react; each difference is chosen from this value.
/// So far it chooses the default `sdkVersion`; the other differences listed in issue 15 follow.
public enum ClientPlatform: String, Sendable, Equatable, CaseIterable {
    case ios
    case android

    /// What each SDK really sends as `sdkVersion`. iOS 3.5.2 still sends `iOS-3.5.1`: its
    /// `SDKVersion` constant in `QueueConsts.h` was not bumped with the podspec. Android sends
    /// `"Android-" + library version` (`QueueITWaitingRoomProvider.getSdkVersion`).
    public var defaultSDKVersion: String {
        switch self {
        case .ios: "iOS-3.5.1"
        case .android: "Android-3.0.0"
        }
    }
}
