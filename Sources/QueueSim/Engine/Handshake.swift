/// What opening a connection cost a visitor: the TCP connect, and the TLS handshake on
/// `https` (nil on plain HTTP). Only the wall clock opens connections.
struct Handshake: Equatable, Sendable {
    var connect: Duration
    var tls: Duration?
    /// What the TLS handshake's ALPN agreed on ("h2", "http/1.1"); nil on plain HTTP or when
    /// nothing was offered (HTTP/1.1 then).
    var applicationProtocol: String? = nil
}

/// The handshake of a visitor's first request, kept in its in-flight record in 9 bytes
/// (microseconds; `UInt32.max` for none) rather than two optional `Duration`s.
struct FirstRequestHandshake: Sendable {
    private var connectMicroseconds = UInt32.max
    private var tlsMicroseconds = UInt32.max
    /// The first request's answer (or failure) has come: later handshakes are not the first's.
    private(set) var settled = false

    /// The first answer's handshake, if its request went out on a connection opened for it.
    mutating func settle(_ handshake: Handshake?) {
        guard !settled else { return }
        settled = true
        guard let handshake else { return }
        connectMicroseconds = Self.micros(handshake.connect)
        if let tls = handshake.tls { tlsMicroseconds = Self.micros(tls) }
    }

    /// Settled by a first answer that came on a connection its request did not open.
    static let settledWithoutHandshake: FirstRequestHandshake = {
        var settled = FirstRequestHandshake()
        settled.settle(nil)
        return settled
    }()

    var handshake: Handshake? {
        guard connectMicroseconds != .max else { return nil }
        return Handshake(
            connect: .microseconds(Int64(connectMicroseconds)),
            tls: tlsMicroseconds == .max ? nil : .microseconds(Int64(tlsMicroseconds)))
    }

    private static func micros(_ duration: Duration) -> UInt32 {
        let micros = max(0, duration.wholeNanoseconds / 1000)
        return UInt32(min(micros, Int64(UInt32.max - 1)))
    }
}
