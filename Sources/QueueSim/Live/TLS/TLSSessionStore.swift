import CNIOBoringSSL

/// The TLS sessions of one loop's iOS devices: the last session each device's cache got
/// from each endpoint, offered by its next connection there, as an iOS process's TLS
/// session cache resumes its sessions across its connections. A device has two caches, its
/// app's (URLSession) and its WKWebView's networking process's (`ConnectionDevice`). One
/// session per device, cache and endpoint, freed when the device's visitor ends (`forget`),
/// so a million visitors hold no more than the ones still running.
///
/// Loop-confined: the pool's factory and the connections on its loop use it.
final class TLSSessionStore {
    private struct Key: Hashable {
        var device: Int
        var cache: Int
        var endpoint: Int
    }

    private var sessions: [Key: OpaquePointer] = [:]
    /// The keys each device holds a session under (so `forget` finds them).
    private var keysByDevice: [Int: [Key]] = [:]

    init() {}

    /// The session `device` last got from `endpoint`, nil when none (the store keeps its
    /// reference: `SSL_set_session` takes one of its own).
    func session(device: Int, cache: Int = 0, endpoint: Int) -> OpaquePointer? {
        sessions[Key(device: device, cache: cache, endpoint: endpoint)]
    }

    /// Keeps `session` (its reference is the store's now) as `device`'s for `endpoint`,
    /// in place of the one before.
    func keep(_ session: OpaquePointer, device: Int, cache: Int = 0, endpoint: Int) {
        let key = Key(device: device, cache: cache, endpoint: endpoint)
        if let previous = sessions.updateValue(session, forKey: key) {
            SSL_SESSION_free(previous)
        } else {
            keysByDevice[device, default: []].append(key)
        }
    }

    /// Frees `device`'s sessions: its visitor ended.
    func forget(device: Int) {
        guard let keys = keysByDevice.removeValue(forKey: device) else { return }
        for key in keys {
            if let session = sessions.removeValue(forKey: key) { SSL_SESSION_free(session) }
        }
    }

    /// Sessions held (tests: none are left once the visitors ended).
    var count: Int { sessions.count }

    deinit {
        for session in sessions.values { SSL_SESSION_free(session) }
    }
}
