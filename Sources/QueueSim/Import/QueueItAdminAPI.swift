import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Queue-it's Admin API v2 (`https://{customerId}.api2.queue-it.net/2_0/`), read-only: the
/// event's settings and its per-minute statistics.
///
/// The key travels only as the `Api-Key` header; no message, file or log line holds it (texts
/// from the server are redacted, and the key's own value is cut out of them too). One deadline
/// bounds each exchange — connecting, the answer's head and its body — as for `--metrics-push`
/// (`RemoteWritePush`): a server that sends its head and then stalls cannot hold the import.
/// Cancelling the calling task (SIGINT) ends the exchange at once.
package struct QueueItAdminAPI: Sendable {
    /// The base up to and including `/2_0`, without a trailing `/`.
    package let base: String
    private let apiKey: String
    package var timeout: Duration
    package var clock: any ImportClock
    /// One line for the user (a wait, a retry), without a newline.
    package var progress: @Sendable (String) -> Void
    /// How often one request is sent when the API answers 429 (the first try included).
    package var attempts = 4
    /// Every request, retries too, waits for its turn in this budget when there is one.
    package var budget: RequestBudget?

    /// The largest answer read: a year of one statistic per minute is about 30 MB.
    static let answerLimit = 64 << 20

    package init(
        base: String, apiKey: String, timeout: Duration = .seconds(30), clock: any ImportClock = WallImportClock(),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.base = base
        self.apiKey = apiKey
        self.timeout = timeout
        self.clock = clock
        self.progress = progress
    }

    /// The base for a customer: `https://{customerId}.api2.queue-it.net/2_0`.
    package static func defaultBase(customer: String) -> String {
        "https://\(customer).api2.queue-it.net/2_0"
    }

    /// `--api-base`: an http(s) URL without user info, query or fragment; its trailing `/` dropped.
    package static func checkedBase(_ text: String) throws(ImportFailure) -> String {
        var base = text.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        let lower = base.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw ImportFailure(
                "--api-base must be an http:// or https:// URL such as https://acme.api2.queue-it.net/2_0")
        }
        let afterScheme = base[base.index(base.firstIndex(of: ":")!, offsetBy: 3)...]
        let host = afterScheme.prefix { $0 != "/" }
        guard !host.isEmpty, !base.contains("?"), !base.contains("#"), !host.contains("@"),
            base.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw ImportFailure(
                "--api-base must be a plain URL (a host, an optional port and path; no user, query or spaces), "
                    + "such as https://acme.api2.queue-it.net/2_0")
        }
        return base
    }

    /// The key from `QUEUEIT_API_KEY`: present, and printable (a header cannot carry a newline).
    package static func checkedKey(_ value: String?) throws(ImportFailure) -> String {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ImportFailure(
                "set QUEUEIT_API_KEY to the Admin API key (Queue-it GO: Account, API keys); "
                    + "the key is read only from the environment, never from the command line")
        }
        guard value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw ImportFailure("QUEUEIT_API_KEY holds a character a header cannot carry (a newline, say)")
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// The base as messages name it.
    package var sourceName: String { SecretRedaction.redact(base) }

    /// GETs `path` (after the base, starting with `/`) and returns the body of a 2xx answer.
    /// A 429 is waited out (its `Retry-After`, else a minute) and asked again, at most
    /// `attempts` times in all; other answers outside 2xx are failures in words.
    package func get(_ path: String, event: String?) async throws(ImportFailure) -> [UInt8] {
        for attempt in 1...attempts {
            try await takeTurn()
            let answer = try await exchange(path)
            if (200..<300).contains(answer.status) { return answer.body }
            let text = cleaned(String(decoding: answer.body, as: UTF8.self))
            guard answer.status == 429, attempt < attempts else {
                throw ImportFailure.answered(status: answer.status, source: sourceName, text: text, event: event)
            }
            let wait = answer.retryAfter ?? .seconds(60)
            progress(
                "the Queue-it API asked to slow down (429): waiting \(ScenarioUnits.describe(wait)) "
                    + "before asking again (try \(attempt + 1) of \(attempts))")
            do { try await clock.sleep(for: wait) } catch { throw Self.interrupted }
        }
        throw ImportFailure.answered(status: 429, source: sourceName, text: "", event: event)
    }

    static let interrupted = ImportFailure("interrupted", status: .interrupted)

    /// A wait as people read it: whole seconds, rounded up (`59.982s` is `1m`).
    static func wholeSeconds(_ duration: Duration) -> Duration {
        .seconds((duration.wholeMilliseconds + 999) / 1000)
    }

    private func takeTurn() async throws(ImportFailure) {
        guard let budget else { return }
        let progress = progress
        do {
            try await budget.take { wait in
                progress(
                    "waiting \(ScenarioUnits.describe(Self.wholeSeconds(wait))): Queue-it allows about \(budget.limit) requests a minute "
                        + "per event")
            }
        } catch {
            throw Self.interrupted
        }
    }

    /// A server's text as one line, without the key even if the server echoed it.
    private func cleaned(_ text: String) -> String {
        let line = ImportFailure.printable(text)
        return apiKey.isEmpty ? line : line.replacingOccurrences(of: apiKey, with: SecretRedaction.replacement)
    }

    private struct Answer: Sendable {
        var status: Int
        var retryAfter: Duration?
        var body: [UInt8]
    }

    private enum Outcome: Sendable {
        case answer(Answer)
        case failed(PushFailure.Reason)
    }

    /// The exchange against its deadline and the caller's cancellation (the race of
    /// `RemoteWritePush`).
    private func exchange(_ path: String) async throws(ImportFailure) -> Answer {
        let race = FirstToFinish<Outcome>()
        let progressOfAnswer = ExchangeProgress()
        let request = makeRequest(path)
        let timeout = timeout
        let outcome: Outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.begin(continuation)
                race.add(Task { race.finish(await Self.send(request, timeout: timeout, progress: progressOfAnswer)) })
                race.add(
                    Task {
                        do { try await Task.sleep(for: timeout) } catch { return }
                        race.finish(.failed(progressOfAnswer.timedOut()))
                    })
            }
        } onCancel: {
            race.finish(.failed(.cancelled))
        }
        switch outcome {
        case .answer(let answer): return answer
        case .failed(.cancelled): throw Self.interrupted
        case .failed(let reason):
            let words = PushFailure(receiver: sourceName, reason: reason, timeout: timeout).description
            throw ImportFailure(
                cleaned(words.replacingOccurrences(of: "the receiver at", with: "the Queue-it API at")),
                status: .aborted)
        }
    }

    private func makeRequest(_ path: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: base + path)
        request.method = .GET
        request.headers.add(name: "Api-Key", value: apiKey)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "queuesim/\(QueueSimVersion.current)")
        return request
    }

    /// A client that does not retry a refused connection (as `RemoteWritePush`'s). Process-long.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        // A redirect would carry the Api-Key header to wherever it points: the API never
        // redirects, so a 3xx is an answer like any other (exit 3, named).
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private static func send(_ request: HTTPClientRequest, timeout: Duration, progress: ExchangeProgress) async
        -> Outcome
    {
        do {
            let response = try await client.execute(
                request, deadline: .now() + .nanoseconds(timeout.wholeNanoseconds))
            progress.headArrived()
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > answerLimit {
                return .failed(.other("the answer is larger than \(answerLimit >> 20) MB"))
            }
            var body = ByteBuffer()
            for try await var chunk in response.body {
                progress.received(chunk.readableBytes)
                if body.readableBytes + chunk.readableBytes > answerLimit {
                    return .failed(.other("the answer is larger than \(answerLimit >> 20) MB"))
                }
                body.writeBuffer(&chunk)
            }
            let retryAfter = response.headers.first(name: "retry-after").flatMap(Int.init).map {
                Duration.seconds(min(max($0, 1), 600))
            }
            return .answer(
                Answer(status: Int(response.status.code), retryAfter: retryAfter, body: Array(buffer: body)))
        } catch {
            return .failed(PushFailure.reason(for: error, headArrived: progress.hasHead))
        }
    }
}
