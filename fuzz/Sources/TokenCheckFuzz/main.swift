// libFuzzer target for the KnownUser token check (`KnownUserTokenValidator`: one pass over the
// token's UTF-8 bytes), differential against a reading written the way the Java connector
// reads a token: split on `~` and `_` over UTF-16 units, the hash message cut with a literal
// Foundation search, HMAC over the rest. The two must agree on the verdict, on what `parse`
// finds and on the shape check, for any input. Where the connectors fold case beyond ASCII
// (Java's `toUpperCase` turns `ﬀ` into `FF`), both sides here fold ASCII only, as documented
// in KnownUserTokenValidator.
// Input: the token. Its first `@H` is replaced by the valid hash of the token without
// `~h_@H`, so the fuzzer reaches the event id and expiry checks.
import Foundation
@testable import QueueClientCore

@testable import QueueSim

private let secret = "fuzz-secret"
private let configuredEventId = "spring-Launch"
private let now: Int64 = 1_797_000_000
private let validator = KnownUserTokenValidator(secretKey: secret, eventId: configuredEventId)

@_cdecl("LLVMFuzzerTestOneInput")
public func tokenCheckFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var token = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let placeholder = token.range(of: "@H", options: .literal) {
        let unsigned = token.replacingOccurrences(of: "~h_@H", with: "", options: .literal)
        token.replaceSubrange(placeholder, with: QueueITHash.hmacSHA256Hex(key: secret, message: unsigned))
    }
    let reading = JavaStyleReading(token)
    let verdict = validator.check(token, nowUnixSeconds: now)
    guard verdict == reading.verdict else {
        fatalError(
            "verdicts differ on \(Array(token.utf8)): \(String(describing: verdict)) vs \(String(describing: reading.verdict))"
        )
    }
    let parsed = KnownUserTokenValidator.parse(token)
    guard parsed.eventId == reading.eventId, parsed.hash == reading.hash, parsed.expiryUnixSeconds == reading.expiry
    else { fatalError("parse differs on \(Array(token.utf8))") }
    guard KnownUserTokenValidator.hasEventIdAndHash(token) == (reading.eventId != nil && reading.hash != nil) else {
        fatalError("the shape check differs on \(Array(token.utf8))")
    }
    return 0
}

/// The oracle: the token read over UTF-16 units and Foundation strings.
private struct JavaStyleReading {
    var eventId: String?
    var hash: String?
    var expiry: Int64?
    var verdict: KnownUserTokenValidator.Failure?

    init(_ token: String) {
        let tilde = UInt16(UInt8(ascii: "~"))
        let underscore = UInt16(UInt8(ascii: "_"))
        for pair in Array(token.utf16).split(separator: tilde, omittingEmptySubsequences: false) {
            let parts = pair.split(separator: underscore, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let value = String(decoding: parts[1], as: UTF16.self)
            switch String(decoding: parts[0], as: UTF16.self) {
            case "e": eventId = value
            case "h": hash = value
            case "ts": expiry = Int64(value)
            default: continue
            }
        }
        verdict = Self.verdict(token, eventId: eventId, hash: hash, expiry: expiry)
    }

    private static func verdict(_ token: String, eventId tokenEvent: String?, hash: String?, expiry: Int64?)
        -> KnownUserTokenValidator.Failure?
    {
        guard let hash else { return .hash }
        var message = token
        if let cut = token.range(of: "~h_" + hash, options: .literal) { message.removeSubrange(cut) }
        let expected = QueueITHash.hmacSHA256Hex(key: secret, message: message)
        guard foldedASCII(expected) == foldedASCII(hash) else { return .hash }
        guard let tokenEvent, foldedASCII(tokenEvent) == foldedASCII(configuredEventId) else { return .eventid }
        guard let expiry, expiry >= now else { return .timestamp }
        return nil
    }

    private static func foldedASCII(_ text: String) -> [UInt16] {
        text.utf16.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
}
