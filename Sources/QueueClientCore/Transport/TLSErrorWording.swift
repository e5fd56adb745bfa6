import NIOSSL

/// TLS failures in words and in the client core's vocabulary, by the error's type (never its
/// name): shared by the SDK-shaped transport here and the live engine's client in QueueSim, so
/// both say and decide the same.
///
/// Only a refused certificate (untrusted, expired, not naming the host) is a phone's SSL error:
/// Android's WebView calls `onReceivedSslError` for those alone, and the SDK ends the visit
/// with `SslError`. A connection closed without `close_notify`, reset mid-handshake or a
/// handshake that fails for another reason reaches the WebView as `onReceivedError`, a failed
/// load, which Android reloads and iOS lives through on its page (`QueuePageRetry`).
package enum TLSErrorWording {
    /// Whether `error` is one of swift-nio-ssl's, or of the live engine's own TLS client
    /// (`TLSClientFailure`).
    package static func isTLS(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError || error is TLSClientFailure
    }

    /// Whether `error` is the server's certificate being refused: the one TLS failure that is
    /// `TransportError.tls` (the SDK's SSL error on a page load).
    package static func isCertificateFailure(_ error: any Error) -> Bool {
        if let failure = error as? TLSClientFailure { return failure.isCertificateFailure }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .unableToValidateCertificate, .noCertificateToValidate, .cannotMatchULabel: return true
            default: break
            }
        }
        if let extra = error as? NIOSSLExtraError,
            extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch
        {
            return true
        }
        // BoringSSL's verification failure arrives as a handshake error whose only trace of the
        // cause is the library's reason string.
        return String(describing: error).contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// A swift-nio-ssl error as the client core classifies it, nil for any other error: a
    /// refused certificate is `.tls`; a close without `close_notify` is `.connectionReset`; a
    /// handshake that fails otherwise is `.connectFailed` (no usable connection was made);
    /// anything else is `.other`, in words.
    package static func transportError(_ error: any Error) -> TransportError? {
        guard isTLS(error) else { return nil }
        if isCertificateFailure(error) { return .tls(words(error)) }
        if let failure = error as? TLSClientFailure {
            return failure == .uncleanShutdown ? .connectionReset : .connectFailed(words(error))
        }
        switch error as? NIOSSLError {
        case .uncleanShutdown?, .readInInvalidTLSState?, .shutdownFailed?:
            return .connectionReset
        case .handshakeFailed?:
            return .connectFailed(words(error))
        default:
            return error is BoringSSLError ? .connectFailed(words(error)) : .other(words(error))
        }
    }

    package static func words(_ error: any Error) -> String {
        if let failure = error as? TLSClientFailure { return failure.description }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .unableToValidateCertificate, .noCertificateToValidate:
                return "the server's certificate could not be verified"
            case .cannotMatchULabel:
                return "the server's certificate does not name this host"
            case .uncleanShutdown:
                return "the server closed the TLS connection without close_notify"
            default: break
            }
        }
        if let extra = error as? NIOSSLExtraError,
            extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch
        {
            return "the server's certificate does not name this host"
        }
        return String(describing: error).contains("CERTIFICATE_VERIFY_FAILED")
            ? "the server's certificate could not be verified" : "the TLS handshake failed"
    }
}

/// A failure of the live engine's own TLS client (iOS visitors' `ResumingTLSClientHandler` on
/// BoringSSL: it resumes sessions, which `NIOSSLHandler` cannot), in the classes
/// `TLSErrorWording` reads swift-nio-ssl's in, with the same words: so a visitor's failure
/// reads the same whichever client carried its connection.
package enum TLSClientFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The chain was refused (untrusted, expired, not yet valid…): the SDK's SSL error.
    case certificateNotVerified
    /// The certificate does not name the host (or address) the requests name: an SSL error.
    case certificateNameMismatch
    /// The handshake failed for another reason (an alert, no common version or cipher, the
    /// connection closed mid-handshake): no usable connection was made.
    case handshakeFailed
    /// A broken record after the handshake.
    case protocolError
    /// The connection closed without `close_notify`: a dropped connection.
    case uncleanShutdown

    var isCertificateFailure: Bool { self == .certificateNotVerified || self == .certificateNameMismatch }

    package var description: String {
        switch self {
        case .certificateNotVerified: "the server's certificate could not be verified"
        case .certificateNameMismatch: "the server's certificate does not name this host"
        case .handshakeFailed, .protocolError: "the TLS handshake failed"
        case .uncleanShutdown: "the server closed the TLS connection without close_notify"
        }
    }
}
