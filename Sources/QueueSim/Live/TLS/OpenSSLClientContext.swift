#if canImport(COpenSSL)
    import COpenSSL
    import QueueClientCore

    /// One endpoint's TLS client settings on the system's OpenSSL (`OpenSSLClientHandler`): the
    /// trust (the system's store and `target.caFile`), the name checked, ALPN, and the callback
    /// that hands each new session to the connection's device (`TLSSessionStore`). Made once
    /// per endpoint and shared by every loop: an `SSL_CTX` is safe to make connections from on
    /// any thread once configured, and nothing here changes after `init`.
    final class OpenSSLClientContext: @unchecked Sendable {
        let context: OpaquePointer
        /// The name SNI carries (nil for an address literal).
        let serverName: String?
        /// What the certificate is checked against: the host name, an address literal, or
        /// nothing (the embedded room, whose certificate stands in for every host).
        let checked: CheckedName

        enum CheckedName: Equatable, Sendable {
            case host(String)
            case address(String)
            case chainOnly
        }

        /// - Parameters:
        ///   - serverName: SNI, nil for an address literal.
        ///   - checked: the name or address the certificate must carry.
        ///   - applicationProtocols: ALPN, in order (none: HTTP/1.1 without asking).
        init(serverName: String?, checked: CheckedName, caFile: String?, applicationProtocols: [String]) throws {
            guard let context = SSL_CTX_new(TLS_client_method()) else {
                throw LiveEndpointError(description: "OpenSSL could not make a TLS client context")
            }
            self.context = context
            self.serverName = serverName
            self.checked = checked
            queuesim_ssl_ctx_configure_client(context)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, openSSLVerify)
            SSL_CTX_sess_set_new_cb(context, openSSLNewSession)
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw LiveEndpointError(description: "OpenSSL could not read the system's trust store")
            }
            if let caFile, SSL_CTX_load_verify_locations(context, caFile, nil) != 1 {
                ERR_clear_error()
                throw LiveEndpointError(description: "the certificates of \(caFile) could not be read")
            }
            if !applicationProtocols.isEmpty {
                // ALPN's wire form: each name prefixed by its length. 0 is success here.
                let wire = applicationProtocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
                guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                    throw LiveEndpointError(description: "OpenSSL refused the ALPN list \(applicationProtocols)")
                }
            }
        }

        deinit {
            SSL_CTX_free(context)
        }
    }

    /// OpenSSL's verification callback: what swift-nio-ssl accepts, this client accepts. A leaf
    /// certificate that does not carry the host name but carries the address the connection
    /// went to is accepted, as swift-nio-ssl's identity check (RFC 6125 plus the peer's IP
    /// address) accepts it, so a run's visitors and its reachability check agree on an
    /// endpoint. Every other refusal stands.
    private let openSSLVerify: @convention(c) (Int32, OpaquePointer?) -> Int32 = { ok, store in
        guard ok == 0, let store, X509_STORE_CTX_get_error(store) == X509_V_ERR_HOSTNAME_MISMATCH,
            X509_STORE_CTX_get_error_depth(store) == 0,
            let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
            let raw = queuesim_ssl_get_app_data(OpaquePointer(ssl)),
            let certificate = X509_STORE_CTX_get_current_cert(store)
        else { return ok }
        let handler = Unmanaged<OpenSSLClientHandler>.fromOpaque(raw).takeUnretainedValue()
        guard let peer = handler.peerAddress, X509_check_ip_asc(certificate, peer, 0) == 1 else { return ok }
        X509_STORE_CTX_set_error(store, X509_V_OK)
        return 1
    }

    /// OpenSSL's new-session callback (`SSL_CTX_sess_set_new_cb`): a TLS 1.3 server's
    /// NewSessionTicket, or a TLS 1.2 session, handed to the connection's handler, which keeps
    /// it for its device or declines it. 1: the reference is taken.
    private let openSSLNewSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
        guard let ssl, let session, let raw = queuesim_ssl_get_app_data(ssl) else { return 0 }
        let handler = Unmanaged<OpenSSLClientHandler>.fromOpaque(raw).takeUnretainedValue()
        return handler.offered(session) ? 1 : 0
    }
#endif
