// libFuzzer target for FlatJSONObject, differential against JSONSerialization: whatever the
// fast reader accepts, Foundation must read as the same members (it is the fallback for
// everything outside the subset, so the two must never disagree inside it). The `keeping:`
// variant must accept and refuse exactly the same bodies.
import Foundation
@testable import QueueClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func flatJSONFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let members = FlatJSONObject.parse(bytes)
    let kept = FlatJSONObject.parseMembers(bytes, keeping: ["QueueId", "key"])
    guard (members == nil) == (kept == nil) else { fatalError("keeping: changed what is accepted") }
    guard let members, let kept else { return 0 }
    guard kept.count == members.count else { fatalError("keeping: changed the member count") }
    // Foundation drops a leading U+FEFF from the strings it reads, where JSON keeps it as a
    // character (FlatJSONObject does): objects with such a key are skipped, such values are
    // compared without it. Foundation's quirk, not a disagreement to chase.
    guard !members.keys.contains(where: { $0.hasPrefix("\u{FEFF}") }) else { return 0 }
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
        fatalError("FlatJSONObject accepted what JSONSerialization refuses")
    }
    guard object.count == members.count else { fatalError("member counts differ: \(object) vs \(members)") }
    for (key, value) in members {
        switch (value, object[key]) {
        case (.string(let text), let other as String) where other == text: continue
        // Foundation drops a byte-order mark that starts a run of plain bytes in a string (at
        // its start, or right after an escape such as `\/`): the fast reader keeps it, as the
        // text it is. Equal but for those marks is equal, compared by Unicode scalars: a mark
        // followed by a combining one (U+FEFF U+0313) is a single `Character`.
        case (.string(let text), let other as String)
        where text.unicodeScalars.contains("\u{FEFF}") && withoutMarks(other) == withoutMarks(text):
            continue
        case (.null, is NSNull): continue
        case (.integer(let number), let other as NSNumber) where other.int64Value == Int64(number): continue
        default:
            fatalError("member \(key): \(value) vs \(String(describing: object[key]))")
        }
    }
    return 0
}

/// `text` without its byte-order marks (U+FEFF), scalar by scalar.
private func withoutMarks(_ text: String) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: text.unicodeScalars.filter { $0 != "\u{FEFF}" })
    return String(scalars)
}
