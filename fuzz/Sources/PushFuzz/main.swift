// libFuzzer target for what `--metrics-push` reads: the URL a person typed (PushURL.parse) and
// a receiver's answer turned into a reason (PushFailure.firstLine). Oracles:
// - parse never traps (port 99999 once trapped inside SocketAddress at the end of a run);
// - an accepted URL's port is 1-65535, its request URL parses again to the same value without
//   the user info, and its description never shows the user info (unless the rest of the URL
//   repeats that text);
// - an answer's reason is one printable line of at most 200 characters (plus "…").
// Input: the URL, optionally followed by a NUL and an answer body.
import Foundation

@testable import QueueSim

@_cdecl("LLVMFuzzerTestOneInput")
public func pushFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let text = String(decoding: Array(parts[0]), as: UTF8.self)
    if case .success(let url) = PushURL.parse(text) {
        if let port = url.port, !(1...65535).contains(port) { fatalError("port \(port) accepted in \(text)") }
        guard case .success(var again) = PushURL.parse(url.requestURL) else {
            fatalError("the request URL of \(text) does not parse: \(url.requestURL)")
        }
        again.userInfo = url.userInfo
        guard again == url else { fatalError("\(text) and its request URL \(url.requestURL) differ") }
        // Text the URL carries outside its user info (a path that happens to repeat it) is
        // shown as typed: only the user info itself must never be.
        if let userInfo = url.userInfo, userInfo.count >= 4, !url.requestURL.contains(userInfo),
            url.description.contains(userInfo)
        {
            fatalError("the description of \(text) shows its user info")
        }
        _ = url.basicCredentials
    }
    if parts.count > 1 {
        let reason = PushFailure.firstLine(String(decoding: parts[1], as: UTF8.self))
        if reason.count > 201 { fatalError("a reason of \(reason.count) characters") }
        if reason.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fatalError("a reason with a control character: \(reason.debugDescription)")
        }
    }
    return 0
}
