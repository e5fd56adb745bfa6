import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import QueueClientCore

/// Sends a remote-write body to a receiver (`--metrics-push URL`): Prometheus with
/// `--web.enable-remote-write-receiver`, Mimir, Thanos receive, an OpenTelemetry collector.
///
/// One deadline bounds the whole exchange: connecting, the answer's head and its body.
/// AsyncHTTPClient's own deadline ends when the head arrives, so a receiver that sent its
/// headers and then stalled (or trickled a byte a second) once held the end of a run for
/// minutes; here the exchange races a timer and loses to it. Cancelling the calling task (a
/// signal at the end of a run) ends the push at once too.
package enum RemoteWritePush {
    /// The most of an answer read: a receiver's reason fits in far less.
    package static let answerLimit = 64 * 1024

    /// A client of its own that does not retry a refused connection (AsyncHTTPClient's shared
    /// one retries until the deadline, so nothing listening cost a whole push timeout and was
    /// reported as no answer). Process-long, like `HTTPClient.shared`, so never shut down.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// POSTs `body` to `url` within `timeout`; throws `PushFailure` (in words) when the receiver
    /// cannot be reached, answers outside 2xx (Prometheus says why in the body, e.g. samples too
    /// old), or does not finish its answer in time.
    package static func send(_ body: [UInt8], to url: PushURL, timeout: Duration = .seconds(10))
        async throws(PushFailure)
    {
        let race = FirstToFinish<PushFailure.Reason?>()
        let progress = ExchangeProgress()
        let failure: PushFailure.Reason? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.begin(continuation)
                race.add(
                    Task {
                        race.finish(await exchange(body, to: url, timeout: timeout, progress: progress))
                    })
                race.add(
                    Task {
                        do { try await Task.sleep(for: timeout) } catch { return }
                        race.finish(progress.timedOut())
                    })
            }
        } onCancel: {
            race.finish(.cancelled)
        }
        if let failure { throw PushFailure(receiver: url.description, reason: failure, timeout: timeout) }
    }

    /// The same for a URL given as text (checked by `PushURL.parse` first).
    package static func send(_ body: [UInt8], to url: String, timeout: Duration = .seconds(10))
        async throws(PushFailure)
    {
        switch PushURL.parse(url) {
        case .success(let parsed):
            try await send(body, to: parsed, timeout: timeout)
        case .failure(let problem):
            throw PushFailure(
                receiver: SecretRedaction.redact(url), reason: .other("the URL \(problem)"), timeout: timeout)
        }
    }

    /// The exchange itself; nil when the receiver took the body (2xx).
    private static func exchange(
        _ body: [UInt8], to url: PushURL, timeout: Duration, progress: ExchangeProgress
    ) async -> PushFailure.Reason? {
        var request = HTTPClientRequest(url: url.requestURL)
        request.method = .POST
        for (name, value) in RemoteWriteRequest.headers { request.headers.add(name: name, value: value) }
        if let credentials = url.basicCredentials {
            request.setBasicAuth(username: credentials.user, password: credentials.password)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            // AsyncHTTPClient's deadline too, so it cleans up after itself; the race above is
            // what bounds the body.
            let response = try await client.execute(
                request, deadline: .now() + .nanoseconds(timeout.wholeNanoseconds))
            progress.headArrived()
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > answerLimit {
                return .answerTooLarge
            }
            var answer = ByteBuffer()
            for try await var chunk in response.body {
                progress.received(chunk.readableBytes)
                if answer.readableBytes + chunk.readableBytes > answerLimit { return .answerTooLarge }
                answer.writeBuffer(&chunk)
            }
            let status = Int(response.status.code)
            guard (200..<300).contains(status) else {
                return .answered(status: status, reason: PushFailure.firstLine(String(buffer: answer)))
            }
            return nil
        } catch {
            return PushFailure.reason(for: error, headArrived: progress.hasHead)
        }
    }
}
