// libFuzzer target for the embedded room's request handling: the head as the server hands it
// over (`RoomHTTPHandler.request`: Host into the authority, names checked), `RoomRequest`'s
// host, path, query and cookie parsing, and `WaitingRoomService.handle` with its JSON body
// reading, token and cookie checks. Nothing may crash; every answer is a well-formed reply.
//
// Input: a selector byte (which room: plain, proxy domain with prefix and invite-only keys,
// or another mode), then requests separated by NUL bytes, each written as
//   METHOD SP TARGET LF (NAME ":" VALUE LF)* LF BODY
// In a request, `@Q` stands for the QueueId and `@C` for the cookie (name=value) the room
// last handed out, so the fuzzer can follow a visitor from enqueue to its turn.
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
@testable import QueueClientCore

@testable import QueueSim

private func configuration(_ selector: UInt8) -> WaitingRoomConfiguration {
    var settings = WaitingRoomSettings()
    settings.outflowPerSecond = 100
    settings.secretKey = "fuzz-secret"
    settings.mode = RoomMode.allCases[Int(selector / 4) % RoomMode.allCases.count]
    switch selector % 4 {
    case 0:
        return WaitingRoomConfiguration(customerId: "acme", waitingRoomId: "spring-launch", settings: settings)
    case 1:
        settings.inviteOnly = true
        return WaitingRoomConfiguration(
            customerId: "acme", waitingRoomId: "vip", waitingRoomDomain: "shop.example.com",
            queuePathPrefix: "/queue/", settings: settings, knownEnqueueKeys: ["KEY-1", "KEY-2"])
    case 2:
        settings.eventStart = .seconds(30)
        return WaitingRoomConfiguration(
            customerId: "Acme", waitingRoomId: "Launch", waitingRoomDomain: "q.example", settings: settings)
    default:
        return WaitingRoomConfiguration(customerId: "acme", waitingRoomId: "checkout", settings: settings)
    }
}

/// One request of the input, as NIO's decoder would hand its head to the room's handler.
private func head(_ text: Substring) -> (HTTPRequestHead, [UInt8]) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let requestLine = lines.first ?? ""
    let parts = requestLine.split(separator: " ", maxSplits: 1)
    let method = HTTPMethod(rawValue: String(parts.first ?? "GET"))
    let uri = parts.count > 1 ? String(parts[1]) : "/"
    var headers = HTTPHeaders()
    var index = 1
    while index < lines.count, !lines[index].isEmpty {
        let line = lines[index]
        // Only what NIO's decoder hands over: a token as the name (llhttp refuses anything else,
        // and `HTTPHeaders.add` requires ASCII), a value without CR (LF already split lines).
        if let colon = line.firstIndex(of: ":"), line[..<colon].utf8.allSatisfy(isTokenByte),
            colon != line.startIndex
        {
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !value.utf8.contains(UInt8(ascii: "\r")) { headers.add(name: String(line[..<colon]), value: value) }
        }
        index += 1
    }
    let body = index + 1 < lines.count ? lines[(index + 1)...].joined(separator: "\n") : ""
    return (HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers), Array(body.utf8))
}

/// RFC 9110 `tchar`.
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
    default:
        "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func roomRequestFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let service = WaitingRoomService(configuration: configuration(input[0]))
    var queueId = ""
    var cookie = ""
    var now = RunInstant.origin
    let requests = input[1...].split(separator: 0, maxSplits: 16, omittingEmptySubsequences: true)
    for raw in requests {
        let text = String(decoding: raw, as: UTF8.self)
            .replacingOccurrences(of: "@Q", with: queueId).replacingOccurrences(of: "@C", with: cookie)
        let (requestHead, body) = head(Substring(text))
        let request = RoomHTTPHandler.request(requestHead)
        // The parsing the routes rely on, called directly as well.
        let parsed = RoomRequest(request)
        _ = (parsed.host, parsed.query, parsed.queryValue("q"), parsed.queryValue(""))
        // The path's segments as routing reads them: none empty, none holding a `/`.
        let segments = parsed.path.withSegments { segments in (0..<segments.count).map(segments.text) }
        guard segments.allSatisfy({ !$0.isEmpty && !$0.utf8.contains(UInt8(ascii: "/")) }) else {
            fatalError("path segments out of shape: \(segments)")
        }
        _ = (parsed.cookie("QueueITAccepted-SDFrts345E-V3_checkout"), parsed.header("x-queueittoken"))
        now = RunInstant(sinceOrigin: now.sinceOrigin + .seconds(7))  // RunInstant's `+` is package: not visible here
        switch service.handle(request, body: body, at: now) {
        case .response(let response, let responseBody, let delay):
            guard delay >= .zero, (100..<600).contains(response.status.code) else {
                fatalError("a reply out of bounds: \(response.status) after \(delay)")
            }
            if let members = FlatJSONObject.parse(responseBody), case .string(let id)? = members["QueueId"] {
                queueId = id
            }
            if let setCookie = response.headerFields[.setCookie], let pair = setCookie.split(separator: ";").first {
                cookie = String(pair)
            }
        case .reset(let delay):
            guard delay >= .zero else { fatalError("a reset before the request: \(delay)") }
        case .noAnswer:
            break
        }
    }
    return 0
}
