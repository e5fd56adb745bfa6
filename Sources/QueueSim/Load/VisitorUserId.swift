import QueueClientCore

/// A visitor's stable user id: a UUID-shaped string (8-4-4-4-12 upper-case hex, with the bits
/// of a version-4, RFC 4122 variant UUID) derived from `SeededRandom(seed, .userId, index)` —
/// upper case as iOS's `identifierForVendor.UUIDString` prints it; for Android visitors 16
/// lower-case hex digits, the shape of `Settings.Secure.ANDROID_ID`. (The room keys its draws
/// by the id case-folded, `VisitorDraws.visitorKey`, so the case changes no outcome.)
///
/// The same seed and visitor index always give the same id, whatever else is in the plan;
/// it is random-looking so a real waiting room sees distinct users.
package enum VisitorUserId {
    package static func make(seed: UInt64, visitorIndex: Int, android: Bool = false) -> String {
        var random = SeededRandom(seed: seed, purpose: .userId, index: UInt64(visitorIndex))
        if android {
            let word = random.next()
            return String(unsafeUninitializedCapacity: 16) { buffer in
                for nibble in 0..<16 { buffer[nibble] = hexDigits[Int((word >> (UInt64(15 - nibble) * 4)) & 0xF)] }
                return 16
            }
        }
        // Version 4 in the high nibble of byte 6; variant 0b10 in the top bits of byte 8.
        let high = (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return format(high: high, low: low)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    private static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ word: UInt64, nibbles: ClosedRange<Int>) {
                // Nibble 15 is the most significant of the word.
                for nibble in nibbles.reversed() {
                    buffer[position] = upperHexDigits[Int((word >> (UInt64(nibble) * 4)) & 0xF)]
                    position += 1
                }
            }
            func dash() {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            put(high, nibbles: 8...15)
            dash()
            put(high, nibbles: 4...7)
            dash()
            put(high, nibbles: 0...3)
            dash()
            put(low, nibbles: 12...15)
            dash()
            put(low, nibbles: 0...11)
            return position
        }
    }
}

/// A group template's user ids (`VisitorConfiguration.numbered`): `VisitorUserId` of the run's
/// seed, in the shape of the template's platform, exactly as the plan makes them.
struct SeededUserIds: NumberedUserIds {
    let seed: UInt64
    let android: Bool

    func userId(ofVisitor number: Int) -> String {
        VisitorUserId.make(seed: seed, visitorIndex: number, android: android)
    }
}
