/// The HTTP version a connection spoke when it answered an exchange: h2 when ALPN agreed on
/// it, HTTP/1.1 otherwise (plain HTTP, no ALPN, or the server picked `http/1.1`).
enum SpokenProtocol: UInt8, Sendable {
    case h2 = 1
    case http1 = 2

    /// The word visitors.csv and run.json use (ALPN's protocol ids).
    var word: String {
        switch self {
        case .h2: "h2"
        case .http1: "http/1.1"
        }
    }
}

/// Which HTTP versions answered a visitor's requests, in the order first used: the
/// `protocol` column of visitors.csv (a room over h2 and its API over HTTP/1.1 is
/// `h2+http/1.1`). Three bits, so `InFlightVisitor` keeps it beside its group index.
struct SpokenProtocols: Sendable, Equatable {
    /// `SpokenProtocol` raw values or-ed, plus `http1First` when HTTP/1.1 came before h2.
    private(set) var bits: UInt8

    private static let http1First: UInt8 = 4
    /// Every bit the set may have: `InFlightVisitor` packs them.
    static let mask: UInt8 = 7

    init(bits: UInt8 = 0) {
        self.bits = bits & Self.mask
    }

    mutating func note(_ spoken: SpokenProtocol) {
        guard bits & spoken.rawValue == 0 else { return }
        if spoken == .http1, bits & SpokenProtocol.h2.rawValue == 0 { bits |= Self.http1First }
        bits |= spoken.rawValue
    }

    /// `h2`, `http/1.1`, both joined by `+` in the order first used, or empty (no request of
    /// the visitor was answered).
    var text: String {
        let h2 = bits & SpokenProtocol.h2.rawValue != 0
        let http1 = bits & SpokenProtocol.http1.rawValue != 0
        switch (h2, http1) {
        case (false, false): return ""
        case (true, false): return SpokenProtocol.h2.word
        case (false, true): return SpokenProtocol.http1.word
        case (true, true):
            let order: [SpokenProtocol] = bits & Self.http1First != 0 ? [.http1, .h2] : [.h2, .http1]
            return order.map(\.word).joined(separator: "+")
        }
    }

    /// Whether `text` is one `text` can be: how a row's protocol cell is told from others.
    static func isText(_ text: String) -> Bool {
        ["", "h2", "http/1.1", "h2+http/1.1", "http/1.1+h2"].contains(text)
    }
}
