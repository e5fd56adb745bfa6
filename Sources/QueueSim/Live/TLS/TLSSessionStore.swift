#if canImport(COpenSSL)
    import COpenSSL

    /// The TLS sessions of one loop's iOS devices: the last session each device got from each
    /// endpoint, offered by its next connection there, as URLSession's TLS session cache
    /// resumes a device's sessions across its connections. One session per device and
    /// endpoint, freed when the device's visitor ends (`forget`), so a million visitors hold
    /// no more than the ones still running.
    ///
    /// Loop-confined: the pool's factory and the connections on its loop use it.
    final class TLSSessionStore {
        private struct Key: Hashable {
            var device: Int
            var endpoint: Int
        }

        private var sessions: [Key: OpaquePointer] = [:]
        /// The endpoints each device holds a session for (so `forget` finds them).
        private var endpointsByDevice: [Int: [Int]] = [:]

        init() {}

        /// The session `device` last got from `endpoint`, nil when none (the store keeps its
        /// reference: `SSL_set_session` takes one of its own).
        func session(device: Int, endpoint: Int) -> OpaquePointer? {
            sessions[Key(device: device, endpoint: endpoint)]
        }

        /// Keeps `session` (its reference is the store's now) as `device`'s for `endpoint`,
        /// in place of the one before.
        func keep(_ session: OpaquePointer, device: Int, endpoint: Int) {
            let key = Key(device: device, endpoint: endpoint)
            if let previous = sessions.updateValue(session, forKey: key) {
                SSL_SESSION_free(previous)
            } else {
                endpointsByDevice[device, default: []].append(endpoint)
            }
        }

        /// Frees `device`'s sessions: its visitor ended.
        func forget(device: Int) {
            guard let endpoints = endpointsByDevice.removeValue(forKey: device) else { return }
            for endpoint in endpoints {
                if let session = sessions.removeValue(forKey: Key(device: device, endpoint: endpoint)) {
                    SSL_SESSION_free(session)
                }
            }
        }

        /// Sessions held (tests: none are left once the visitors ended).
        var count: Int { sessions.count }

        deinit {
            for session in sessions.values { SSL_SESSION_free(session) }
        }
    }
#endif
