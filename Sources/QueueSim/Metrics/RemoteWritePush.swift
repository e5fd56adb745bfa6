import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Sends a remote-write body to a receiver (`--metrics-push URL`): Prometheus with
/// `--web.enable-remote-write-receiver`, Mimir, Thanos receive, an OpenTelemetry collector.
package enum RemoteWritePush {
    package struct Refused: Error, CustomStringConvertible {
        package var status: Int
        package var answer: String
        package var description: String { "the receiver answered \(status): \(answer)" }
    }

    /// POSTs `body`; throws `Refused` for an answer outside 2xx (Prometheus says why in the body,
    /// e.g. samples too old), or the transport's error.
    package static func send(_ body: [UInt8], to url: String, timeout: Duration = .seconds(10)) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in RemoteWriteRequest.headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(
            request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw Refused(status: Int(response.status.code), answer: String(buffer: answer))
        }
    }
}
