// libFuzzer target for the live client's HTTP/1 response parser. The first byte picks how the
// rest arrives (all at once, or in reads of 1–255 bytes, as a socket may deliver it); the
// parser must never crash, keep its size limits, and — for inputs too short to reach a line
// limit — read the same responses whatever the split (a read boundary is not a message boundary).
import HTTPTypes
import NIOCore

@testable import QueueSim

private struct Outcome: Equatable {
    var responses: [Summary] = []
    var failed = false
    var closedResponse: Summary?

    struct Summary: Equatable {
        var status: Int
        var fields: [String]
        var body: [UInt8]
        var keepAlive: Bool

        init(_ response: HTTP1ResponseParser.Response) {
            status = response.head.status.code
            fields = response.head.headerFields.map { "\($0.name.canonicalName): \($0.value)" }
            body = response.body
            keepAlive = response.keepAlive
        }
    }
}

private func feed(_ bytes: ArraySlice<UInt8>, readSize: Int) -> Outcome {
    var parser = HTTP1ResponseParser()
    var buffer = ByteBuffer()
    var outcome = Outcome()
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        let end = min(offset + readSize, bytes.endIndex)
        buffer.writeBytes(bytes[offset..<end])
        offset = end
        do {
            // A read may complete several responses (the parser hands back one per call).
            while let response = try parser.parse(&buffer) {
                guard response.body.count <= HTTP1ResponseParser.maxBodyBytes else { fatalError("body over the limit") }
                outcome.responses.append(.init(response))
                if outcome.responses.count > 10_000 { fatalError("responses without input") }
            }
        } catch {
            outcome.failed = true
            return outcome
        }
        buffer.discardReadBytes()
    }
    outcome.closedResponse = parser.connectionClosed().map(Outcome.Summary.init)
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func http1ResponseFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let readSize = Int(input[0])
    let bytes = input[1...]
    let whole = feed(bytes, readSize: max(bytes.count, 1))
    guard readSize > 0 else { return 0 }
    let split = feed(bytes, readSize: readSize)
    // Under 1 KiB no line or head limit can be reached, so the split must not matter.
    if bytes.count < 1024, whole != split {
        fatalError("the read size changed the outcome: \(whole) vs \(split) (reads of \(readSize))")
    }
    return 0
}
