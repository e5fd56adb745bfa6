import NIOSSL

/// TLS failures in words, by the error's type (never its name): shared by the SDK-shaped
/// transport here and the live engine's client in QueueSim, so both say the same.
package enum TLSErrorWording {
    /// Whether `error` is one of swift-nio-ssl's.
    package static func isTLS(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }

    package static func words(_ error: any Error) -> String {
        if let ssl = error as? NIOSSLError, case .unableToValidateCertificate = ssl {
            return "the server's certificate could not be verified"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate does not name this host"
        }
        // BoringSSL's verification failure arrives as a handshake error whose only trace of the
        // cause is the library's reason string.
        return String(describing: error).contains("CERTIFICATE_VERIFY_FAILED")
            ? "the server's certificate could not be verified" : "the TLS handshake failed"
    }
}
