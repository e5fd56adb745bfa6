/// `client.connections` (and a group's `connections`): whose connections a visitor's requests
/// ride on the wall clock.
package enum ConnectionModel: String, Sendable, Equatable, CaseIterable {
    /// Each visitor owns its connections, as a phone does: opened when it first needs them
    /// (a TCP and, on https, a full TLS handshake each), closed when it ends. iOS keeps one
    /// for its enqueue calls and one for its WebView; Android opens a new one for every enqueue
    /// call and one for its WebView; the protected API gets the app's own.
    case device
    /// The loop's keep-alive connections serve any visitor (at most `min(run.concurrency,
    /// 1024)`, opened before a burst): a server's request capacity alone.
    case shared
}

/// `client.sourceAddresses: 127.0.0.2-127.0.0.200`: IPv4 addresses connections are made from,
/// a visitor's all from one, the visitors in turn.
package struct SourceAddressRange: Sendable, Equatable {
    /// The first and last address as 32-bit numbers, `first <= last`.
    package var first: UInt32
    package var last: UInt32

    package var count: Int { Int(last - first) + 1 }

    /// The addresses in dotted form, in order.
    package var addresses: [String] {
        (first...last).map { value in
            [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        }
    }

    /// `A` or `A-B` with dotted IPv4 addresses; nil when the text is neither.
    package static func parse(_ text: String) -> SourceAddressRange? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
            let first = ipv4(parts[0]), let last = parts.count == 2 ? ipv4(parts[1]) : first, first <= last
        else { return nil }
        return SourceAddressRange(first: first, last: last)
    }

    private static func ipv4(_ text: Substring) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard (1...3).contains(octet.count), octet.allSatisfy(\.isASCII), let byte = UInt8(octet) else {
                return nil
            }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
