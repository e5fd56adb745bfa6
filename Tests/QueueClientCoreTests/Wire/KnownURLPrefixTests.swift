import TestSeeds
import Testing

@_spi(Wire) @testable import QueueClientCore

/// A navigator takes the queue URLs of a room's visitors apart by comparing each with the last
/// one's text up to its query: whatever it hands back must be what the full parse gives.
@Suite("queue URLs read against the last one's prefix parse as the full parse does")
struct KnownURLPrefixTests {
    private static let bases = [
        "https://acme.queue-it.net/queue/acme/launch?q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb",
        "HTTPS://Acme.Queue-It.net:8443/queue/acme/launch?c=acme&q=1",
        "https://user@q.shop.example/waiting/queue/acme/launch?q=1#top",
        "http://[::1]:80/?q=1", "https://acme.queue-it.net?q=1", "https://acme.queue-it.net/a#x?q=1",
        "https://acme.queue-it.net/a?b?c", "queueit://close?x=1",
    ]

    @Test("each text and its changed copies: the shortcut is nil or the parse, and it is taken")
    func shortcutIsTheParse() throws {
        let alphabet = Array("?#/:@%&=qQaZ0-.[]".utf8)
        var random = SplitMix64(seed: 0x5EED)
        var taken = 0
        for base in Self.bases {
            let url = try #require(SimpleURL(base))
            let known = SimpleURL.KnownPrefix(url, text: base)
            for _ in 0..<1_500 {
                var bytes = Array(base.utf8)
                for _ in 0..<random.below(3) {
                    let at = random.below(bytes.count + 1)
                    switch random.below(3) {
                    case 0: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                    case 1 where at < bytes.count: bytes[at] = alphabet[random.below(alphabet.count)]
                    default: if at < bytes.count { bytes.remove(at: at) }
                    }
                }
                let text = String(decoding: bytes, as: UTF8.self)
                guard let shortcut = known?.parse(text) else { continue }
                taken += 1
                #expect(shortcut == SimpleURL(text), "\(base) → \(text)")
            }
        }
        #expect(taken > 3_000)
    }

    @Test("redirects: the shortcut is nil or what resolving gives, dot segments and blanks included")
    func redirectShortcutIsTheResolve() throws {
        let base = try #require(SimpleURL("https://acme.queue-it.net/queue/acme/launch?q=1"))
        let references = [
            "https://shop.example/?queueittoken=e_launch~q_1~ts_2~h_ab",
            "https://shop.example/a/../b/./c?queueittoken=x", "HTTP://Shop.Example:80/launch?x=1&queueittoken=y",
        ]
        let alphabet = Array("?#/:. \t=qa0".utf8)
        var random = SplitMix64(seed: 0xD07)
        var taken = 0
        for reference in references {
            let resolved = try #require(SimpleURL.resolve(reference, against: base))
            let known = try #require(SimpleURL.KnownPrefix(resolved: resolved, reference: reference))
            for _ in 0..<1_500 {
                var bytes = Array(reference.utf8)
                for _ in 0..<random.below(3) {
                    let at = random.below(bytes.count + 1)
                    if random.below(2) == 0 || at == bytes.count {
                        bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                    } else {
                        bytes[at] = alphabet[random.below(alphabet.count)]
                    }
                }
                let text = String(decoding: bytes, as: UTF8.self)
                guard let shortcut = known.resolve(text) else { continue }
                taken += 1
                #expect(shortcut == SimpleURL.resolve(text, against: base), "\(reference) → \(text)")
            }
        }
        #expect(taken > 1_500)
        // A relative reference, or one with a blank at an end, keeps no prefix.
        for reference in ["/launch?queueittoken=x", " https://shop.example/?x=1", "https://shop.example/?x=1\t"] {
            let resolved = try #require(SimpleURL.resolve(reference, against: base))
            #expect(SimpleURL.KnownPrefix(resolved: resolved, reference: reference) == nil)
        }
    }

    @Test("no prefix is kept for a text without a query, or with a fragment before it")
    func noPrefixWithoutAQuery() throws {
        for text in ["https://acme.queue-it.net/queue", "https://acme.queue-it.net/a#x?q=1"] {
            #expect(SimpleURL.KnownPrefix(try #require(SimpleURL(text)), text: text) == nil)
        }
    }
}
