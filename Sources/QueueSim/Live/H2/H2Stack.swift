import HTTPTypes
import NIOHPACK
import NIOHTTP2
import QueueClientCore

/// The phone's HTTP stack that sends a request, as its h2 frames show it (docs/client-core.md,
/// "HTTP/2"): the order of its pseudo-header fields, its first SETTINGS and the increment of
/// its first connection WINDOW_UPDATE. An h2 connection takes its SETTINGS and window from the
/// stack of the request it was opened for; each request's HEADERS are in its own stack's order.
enum H2Stack: Equatable, Sendable {
    /// OkHttp 4.x: Android's enqueue call and the app's API calls.
    case okHttp
    /// Chromium's network stack in Android's WebView: Android's page loads.
    case chromium
    /// CFNetwork, under URLSession and WKWebView alike: every iOS request.
    case cfNetwork

    /// The stack that sends `request`, read from the head `PlatformHeaders` gave it: OkHttp
    /// writes `Host` after the app's fields (the only stack whose layout moves `Host`),
    /// Chromium's page loads carry `X-Requested-With` (the app's package) and client hints,
    /// and everything else is iOS's (CFNetwork's order, which the embedded room's own calls
    /// and the reachability check share).
    static func of(_ request: borrowing OutgoingRequest) -> H2Stack {
        of(request.head, layout: request.layout)
    }

    static func of(_ head: HTTPRequest, layout: HeadLayout) -> H2Stack {
        if layout.hostBefore != nil { return .okHttp }
        let fields = head.headerFields
        if fields[xRequestedWith] != nil || fields[secCHUA] != nil { return .chromium }
        return .cfNetwork
    }

    private static let xRequestedWith = HTTPField.Name("X-Requested-With")!
    private static let secCHUA = HTTPField.Name("sec-ch-ua")!

    enum PseudoField { case method, scheme, authority, path }

    /// The pseudo-header fields in the order the stack writes them.
    var pseudoHeaderOrder: [PseudoField] {
        switch self {
        // OkHttp `Http2ExchangeCodec.http2HeadersList`: method, path, authority, scheme.
        case .okHttp: [.method, .path, .authority, .scheme]
        // Chromium `SpdyHeaderBlock` for a request: method, authority, scheme, path.
        case .chromium: [.method, .authority, .scheme, .path]
        // CFNetwork (observed): method, scheme, path, authority.
        case .cfNetwork: [.method, .scheme, .path, .authority]
        }
    }

    /// The SETTINGS the stack sends first, in its order.
    var initialSettings: HTTP2Settings {
        switch self {
        case .okHttp:
            // `Http2Connection.okHttpSettings`: only the stream window, OKHTTP_CLIENT_WINDOW_SIZE.
            [HTTP2Setting(parameter: .initialWindowSize, value: Self.okHttpWindow)]
        case .chromium:
            [
                HTTP2Setting(parameter: .headerTableSize, value: 65_536),
                HTTP2Setting(parameter: .enablePush, value: 0),
                HTTP2Setting(parameter: .initialWindowSize, value: 6_291_456),
                HTTP2Setting(parameter: .maxHeaderListSize, value: 262_144),
            ]
        case .cfNetwork:
            [
                HTTP2Setting(parameter: .enablePush, value: 0),
                HTTP2Setting(parameter: .initialWindowSize, value: 2_097_152),
                HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
                HTTP2Setting(parameter: .maxFrameSize, value: 16_384),
                // SETTINGS_NO_RFC7540_PRIORITIES (RFC 9218).
                HTTP2Setting(parameter: HTTP2SettingsParameter(extensionSetting: 9), value: 1),
            ]
        }
    }

    /// The increment of the connection WINDOW_UPDATE sent right after SETTINGS.
    var connectionWindowIncrement: Int {
        switch self {
        // `Http2Connection.start`: the stream window less the default 65,535.
        case .okHttp: Self.okHttpWindow - 65_535
        case .chromium: 15_663_105
        case .cfNetwork: 10_485_760
        }
    }

    /// The stream window the stack advertises: what a stream's WINDOW_UPDATEs top it up to.
    var streamWindow: Int {
        initialSettings.first { $0.parameter == .initialWindowSize }?.value ?? 65_535
    }

    /// The connection window once the first WINDOW_UPDATE is in.
    var connectionWindow: Int { 65_535 + connectionWindowIncrement }

    private static let okHttpWindow = 16 * 1024 * 1024

    /// `request`'s HEADERS block: the pseudo-header fields in the stack's order, then the
    /// request's fields in their order, lowercased, without `Host` (it is `:authority`) and the
    /// fields h2 forbids, with `content-length` where the stack's HTTP/1.1 layout puts it.
    func headerBlock(for request: borrowing OutgoingRequest, defaultAuthority: String) -> HPACKHeaders {
        headerBlock(
            request.head, layout: request.layout, bodyLength: request.body?.count, defaultAuthority: defaultAuthority)
    }

    /// The same, from the request's parts (its head read once: a page load makes it when read).
    func headerBlock(
        _ head: HTTPRequest, layout: HeadLayout, bodyLength: Int?, defaultAuthority: String
    ) -> HPACKHeaders {
        var block = HPACKHeaders()
        block.reserveCapacity(head.headerFields.count + 5)
        for pseudo in pseudoHeaderOrder {
            switch pseudo {
            case .method: block.add(name: ":method", value: head.method.rawValue)
            case .scheme: block.add(name: ":scheme", value: head.scheme ?? "https")
            case .authority: block.add(name: ":authority", value: head.authority ?? defaultAuthority)
            case .path: block.add(name: ":path", value: head.path ?? "/")
            }
        }
        let length = bodyLength.map { String($0) }
        var lengthWritten = length == nil
        for field in head.headerFields {
            let name = field.name
            // Before the field it precedes in HTTP/1.1, even one h2 leaves out (OkHttp's
            // `Connection`).
            if !lengthWritten, name == layout.contentLengthBefore, let length {
                block.add(name: "content-length", value: length)
                lengthWritten = true
            }
            if name == .contentLength || Self.connectionSpecific.contains(name.canonicalName) { continue }
            block.add(name: name.canonicalName, value: field.value)
        }
        if !lengthWritten, let length { block.add(name: "content-length", value: length) }
        return block
    }

    /// Names h2 forbids or makes pseudo (RFC 9113 §8.2.2), lowercase as `canonicalName` is.
    private static let connectionSpecific: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te",
    ]
}
