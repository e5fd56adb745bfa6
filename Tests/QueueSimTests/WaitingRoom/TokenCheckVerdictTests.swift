import CSHA256
import Crypto
import QueueClientCore
import Testing

@testable import QueueSim

/// The token check, one pass over the token's bytes, on odd tokens as well as real ones.
/// (`fuzz/Sources/TokenCheckFuzz` checks it against a String-level reading on any input.)
@Suite("Token check verdicts")
struct TokenCheckVerdictTests {
    typealias Failure = KnownUserTokenValidator.Failure
    static let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "spring-Launch")
    static let now: Int64 = 1_797_000_000

    static func signed(_ unsigned: String) -> String {
        unsigned + "~h_" + QueueITHash.hmacSHA256Hex(key: RoomFixture.secret, message: unsigned)
    }

    static let valid = signed("e_spring-launch~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_true~rt_queue")

    struct Case: Sendable, CustomTestStringConvertible {
        var token: String
        var verdict: Failure?
        var why: String
        var testDescription: String { why }
    }

    static let cases: [Case] = [
        Case(token: valid, verdict: nil, why: "a real token"),
        Case(token: valid.uppercased(), verdict: .hash, why: "keys are case-sensitive: E_ and H_ are not pairs"),
        Case(token: valid.replacingOccurrences(of: "~h_", with: "~h_0"), verdict: .hash, why: "wrong hash length"),
        Case(token: String(valid.dropLast()) + "0", verdict: .hash, why: "tampered hash"),
        Case(token: signed("e_other~q_x~ts_1797033600~ce_true~rt_queue"), verdict: .eventid, why: "another event"),
        Case(token: signed("e_SPRING-LAUNCH~q_x~ts_1797033600~rt_queue"), verdict: nil, why: "event id in capitals"),
        Case(token: signed("e_spring-launch~q_x~ts_1796999999~rt_queue"), verdict: .timestamp, why: "expired"),
        Case(token: signed("e_spring-launch~q_x~ts_1797000000~rt_queue"), verdict: nil, why: "expires now"),
        Case(token: signed("e_spring-launch~q_x~ts_+1797033600~rt_queue"), verdict: nil, why: "Int64 reads +"),
        Case(token: signed("e_spring-launch~q_x~ts_17970336x0~rt_queue"), verdict: .timestamp, why: "bad expiry"),
        Case(token: signed("e_spring-launch~q_x~rt_queue"), verdict: .timestamp, why: "no expiry"),
        Case(token: signed("q_x~ts_1797033600~rt_queue"), verdict: .eventid, why: "no event id"),
        Case(token: signed("e_spring-launch~e_other~ts_1797033600"), verdict: .eventid, why: "the last e_ wins"),
        Case(token: signed("e_other~e_spring-launch~ts_1797033600"), verdict: nil, why: "the last e_ wins (valid)"),
        Case(token: signed("e_spring_launch~ts_1797033600"), verdict: .eventid, why: "two underscores: skipped"),
        Case(token: signed("e_spring-launch~~ts_1797033600~"), verdict: nil, why: "empty pairs"),
        Case(
            token: "h_" + QueueITHash.hmacSHA256Hex(key: RoomFixture.secret, message: "") + "~e_spring-launch",
            verdict: .hash, why: "a leading h_ is not cut from the message"),
        Case(token: valid + "~h_" + String(repeating: "a", count: 64), verdict: .hash, why: "a second h_ wins"),
        Case(token: valid + "~h_", verdict: .hash, why: "an empty hash"),
        Case(token: "e_spring-launch~ts_1797033600", verdict: .hash, why: "no hash"),
        Case(token: "", verdict: .hash, why: "empty"),
        Case(token: "~", verdict: .hash, why: "one separator"),
        Case(token: "____", verdict: .hash, why: "underscores only"),
        Case(token: signed("e_spring-launch~q_é~ts_1797033600"), verdict: nil, why: "non-ASCII elsewhere"),
        Case(token: signed("e_spring-launché~ts_1797033600"), verdict: .eventid, why: "non-ASCII event id"),
        // U+212A KELVIN SIGN lowercases to `k`; event ids are ASCII and compared as bytes.
        Case(token: signed("e_spring-launch\u{212A}~ts_1797033600"), verdict: .eventid, why: "Kelvin sign"),
    ]

    @Test("Verdict", arguments: cases)
    func verdict(_ test: Case) {
        #expect(Self.validator.check(test.token, nowUnixSeconds: Self.now) == test.verdict)
        let validated = Self.validator.validate(test.token, nowUnixSeconds: Self.now)
        if let expected = test.verdict {
            #expect(validated == .failure(expected))
        } else {
            #expect(validated == .success(KnownUserTokenValidator.parse(test.token)))
        }
    }

    @Test(
        "The shape check without a secret agrees with the full parse",
        arguments: cases.map(\.token) + ["é_x~h_y", "e_é~h_1"])
    func shapeCheckAgrees(token: String) {
        let parsed = KnownUserTokenValidator.parse(token)
        #expect(KnownUserTokenValidator.hasEventIdAndHash(token) == (parsed.eventId != nil && parsed.hash != nil))
    }

    @Test func parseSplitsNonASCIITokensAtTheirSeparators() {
        let parsed = KnownUserTokenValidator.parse("e_é~q_ü_x~ts_12~h_ab")
        #expect(parsed.eventId == "é")
        #expect(parsed.queueId == nil, "two underscores: skipped")
        #expect(parsed.expiryUnixSeconds == 12)
        #expect(parsed.hash == "ab")
    }

    @Test func preparedKeySignsLikeAFreshKey() {
        let token = KnownUserToken(eventId: "e1", queueId: "q", expiryUnixSeconds: 5, redirectType: "queue")
        #expect(
            token.signed(with: PreparedHMAC(key: RoomFixture.secret)) == token.signed(secretKey: RoomFixture.secret))
        let key = PreparedHMAC(key: "k")
        // The prepared state is copied per message: a second message is not hashed after the first.
        #expect(key.hex("a") == QueueITHash.hmacSHA256Hex(key: "k", message: "a"))
        #expect(key.hex("b") == QueueITHash.hmacSHA256Hex(key: "k", message: "b"))
    }

    /// A token is written, hashed and finished in one buffer: the same text as its parts
    /// joined, with and without a queue id and a cookie validity, for any expiry, and with
    /// multi-byte characters in its ids.
    @Test func signedTokenIsItsTextAndTheTextsHash() {
        let key = PreparedHMAC(key: RoomFixture.secret)
        for (eventId, queueId) in [("e1", "6cf23f10-aca7-4fa2-840e-e10f56aecb44"), ("é-room", nil), ("x", "ü")] {
            for expiry: Int64 in [0, 7, -1, -42, 1_797_033_600, .max, .min] {
                for validity: Int? in [nil, 0, 20, -3] {
                    let token = KnownUserToken(
                        eventId: eventId, queueId: queueId, expiryUnixSeconds: expiry,
                        extendableCookie: validity == nil,
                        cookieValidityMinutes: validity, redirectType: validity == nil ? "queue" : "safetynet")
                    var text = "e_\(eventId)" + (queueId.map { "~q_\($0)" } ?? "") + "~ts_\(expiry)"
                    text += validity == nil ? "~ce_true" : "~ce_false"
                    text += (validity.map { "~cv_\($0)" } ?? "") + "~rt_\(token.redirectType)"
                    #expect(token.unsignedText == text)
                    #expect(token.signed(with: key) == text + "~h_" + key.hex(text))
                    #expect(token.unsignedPlaceholder == text + "~h_" + String(repeating: "0", count: 64))
                }
            }
        }
    }

    /// RFC 4231's test case 2, the one with a text key and message.
    @Test func preparedKeyMatchesRFC4231() {
        #expect(
            PreparedHMAC(key: "Jefe").hex("what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// Against swift-crypto's `HMAC<SHA256>` for keys shorter than, exactly and longer than a
    /// block, and messages from empty to several blocks, split at every place between `first`
    /// and `second`.
    @Test func preparedKeyMatchesCryptoHMAC() {
        for keyLength in [0, 1, 32, 63, 64, 65, 200] {
            let key = String((0..<keyLength).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
            let prepared = PreparedHMAC(key: key)
            for messageLength in [0, 1, 55, 56, 64, 119, 200] {
                let message = Array((0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
                let expected = HMAC<SHA256>.authenticationCode(
                    for: message, using: SymmetricKey(data: Array(key.utf8))
                ).withUnsafeBytes(QueueITHash.hex)
                for split in Set([0, messageLength / 2, messageLength]) {
                    let code = message.withUnsafeBytes { bytes in
                        prepared.hex(
                            UnsafeRawBufferPointer(rebasing: bytes[..<split]),
                            UnsafeRawBufferPointer(rebasing: bytes[split...]))
                    }
                    #expect(code == expected, "key \(keyLength) bytes, message \(messageLength), split at \(split)")
                }
            }
        }
    }
}

/// `CSHA256`, under the room's HMAC: the digest of every message length from empty to several
/// blocks against swift-crypto's `SHA256`, and the CPU's SHA extensions (where this machine has
/// them) against the portable compression over many states and blocks.
@Suite struct SHA256CompressionTests {
    static func message(_ length: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(length))
        return (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test func digestsMatchSwiftCrypto() {
        for length in 0...300 {
            let message = Self.message(length, seed: 1)
            var state = [UInt32](repeating: 0, count: 8)
            qs_sha256_init(&state)
            var digest = [UInt8](repeating: 0, count: 32)
            message.withUnsafeBufferPointer { qs_sha256_finish(state, 0, $0.baseAddress, length, &digest) }
            #expect(digest == Array(SHA256.hash(data: message)), "\(length) bytes")
        }
    }

    @Test func extensionsMatchThePortableCompression() {
        for round in 0..<2_000 {
            let blocks = 1 + round % 3
            let data = Self.message(64 * blocks, seed: UInt64(round))
            let start = Self.message(32, seed: UInt64(round) + 1_000_000).withUnsafeBytes {
                Array($0.bindMemory(to: UInt32.self))
            }
            var dispatched = start
            var portable = start
            qs_sha256_blocks(&dispatched, data, blocks)
            qs_sha256_blocks_portable(&portable, data, blocks)
            #expect(dispatched == portable, "round \(round)")
            if dispatched != portable { return }
        }
    }
}

/// Queue ids are written and read over bytes; the ids must stay the ones the string code made.
@Suite struct QueueIdCodecTests {
    /// The id as the first implementation built it, with `String(radix:)` and padding.
    static func referenceId(seed: UInt64, ticket: Int) -> String {
        var maskSource = SeededRandom(seed: seed, purpose: .queueId, index: .max)
        let mask = maskSource.next() & 0xFFFF_FFFF_FFFF
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(ticket))
        let high = random.next()
        let middle = random.next()
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return
            "\(hex(high >> 32, 8))-\(hex((high >> 16) & 0xFFFF, 4))-\(hex(0x4000 | (high & 0x0FFF), 4))-\(hex(0x8000 | (middle & 0x3FFF), 4))-\(hex((UInt64(ticket) ^ mask) & 0xFFFF_FFFF_FFFF, 12))"
    }

    @Test func idsAreTheReferenceIdsAndReadBack() {
        for seed: UInt64 in [0, 6, 77, .max] {
            let codec = QueueIdCodec(seed: seed)
            for ticket in [0, 1, 2, 15, 16, 255, 4_096, 999_999, 1 << 40] {
                let id = codec.queueId(ofTicket: ticket)
                #expect(id == Self.referenceId(seed: seed, ticket: ticket))
                #expect(codec.ticket(forQueueId: id, ticketCount: ticket + 1) == ticket)
                #expect(codec.ticket(forQueueId: id.uppercased(), ticketCount: ticket + 1) == ticket)
                #expect(codec.ticket(forQueueId: id, ticketCount: ticket) == nil, "not issued yet")
            }
        }
    }

    @Test func foreignAndMalformedIdsAreRefused() {
        let codec = QueueIdCodec(seed: 6)
        let id = codec.queueId(ofTicket: 42)
        #expect(QueueIdCodec(seed: 7).ticket(forQueueId: id, ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast()), ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: id + "0", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: "x" + id.dropFirst(), ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast(12)) + "+00000000002", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast(12)) + "zzzzzzzzzzzz", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: "", ticketCount: 100) == nil)
    }

    /// The poll shortcut hands the room a packed id's digits: the room must read them as it
    /// reads the id's text, in either case, and refuse what the text path refuses.
    @Test func packedDigitsReadAsTheText() throws {
        let codec = QueueIdCodec(seed: 6)
        func digits(_ text: String) -> PageQueueId? {
            PackedText("q=" + text).uuidDigits(after: "q=").map { .uuid(high: $0.high, low: $0.low) }
        }
        for ticket in [0, 1, 42, 4_096, 999_999] {
            let id = codec.queueId(ofTicket: ticket)
            for text in [id, id.uppercased()] {
                guard case .uuid(let high, let low) = try #require(digits(text)) else { continue }
                #expect(codec.ticket(forUUIDHigh: high, low: low, ticketCount: ticket + 1) == ticket)
                #expect(codec.ticket(forUUIDHigh: high, low: low, ticketCount: ticket) == nil, "not issued yet")
            }
            // Another seed's id, or one digit changed anywhere: refused, as the text is.
            let foreign = QueueIdCodec(seed: 7).queueId(ofTicket: ticket)
            var changed = Array(id.utf8)
            changed[3] = changed[3] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            for text in [foreign, String(decoding: changed, as: UTF8.self)] {
                #expect(codec.ticket(forQueueId: text, ticketCount: 1_000_000) == nil)
                guard case .uuid(let high, let low) = try #require(digits(text)) else { continue }
                #expect(codec.ticket(forUUIDHigh: high, low: low, ticketCount: 1_000_000) == nil)
            }
        }
        // Not after the prefix asked for, or not a UUID: no digits.
        #expect(PackedText("q=" + codec.queueId(ofTicket: 3)).uuidDigits(after: "c=") == nil)
        #expect(PackedText("q=0123456789abcdef").uuidDigits(after: "q=") == nil)
    }
}
