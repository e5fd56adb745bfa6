/// Whose connections an exchange may ride, and where they go. In the `shared` model every
/// exchange to an endpoint has the same owner (`visitor` -1); in the `device` model a
/// visitor's exchanges are its own, one owner per role.
struct ConnectionOwner: Hashable, Sendable {
    /// The visitor's index in the run's plan (unique for the run, unlike its slot), or -1.
    var visitor: Int
    var role: ConnectionRole
    /// Which of the pool's endpoints the connections go to (`LiveConnectionPool.endpoints`).
    var endpoint: UInt8

    static let shared = ConnectionOwner(visitor: -1, role: .shared, endpoint: 0)

    static func shared(endpoint: UInt8) -> ConnectionOwner {
        ConnectionOwner(visitor: -1, role: .shared, endpoint: endpoint)
    }

    var isVisitor: Bool { visitor >= 0 }
}

/// What a visitor's connection is for: a phone keeps its enqueue calls (the SDK's HTTP
/// client), its WebView's page loads and the app's own API calls on separate connections.
enum ConnectionRole: UInt8, Hashable, Sendable, CaseIterable {
    case shared
    case enqueue
    case webView
    case protectedApi
}
