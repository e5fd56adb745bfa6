// An app's use of QueueClientCore, written against its public API only: scripts/check-public-api
// type-checks this file as a module of its own (no `-package-name`, so nothing `package` is
// visible), and fails when the SDK-shaped API stops being enough for it.
import HTTPTypes
import QueueClientCore

/// The app's listener: the Swift SDK's callbacks, in its words.
final class LaunchListener: QueueListener {
    func onQueuePassed(info: QueuePassedInfo) {
        print("passed", info.queueItToken == nil ? "without a token" : "with a token")
    }
    func onQueueViewWillOpen() { print("the queue view opens") }
    func onQueueDisabled(info: QueueDisabledInfo) { print("the waiting room is disabled") }
    func onQueueItUnavailable() { print("Queue-it is unavailable") }
    func onError(error: QueueError, errorMessage: String) { print("error", error.rawValue, errorMessage) }
    func onQueueUrlChanged(_ url: String) { print("queue URL changed") }
}

/// A transport of the app's own (for instance with its own TLS pinning): wraps the default one.
struct CountingTransport: HTTPTransport {
    let inner: AsyncHTTPTransport
    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError> {
        let method = request.head.method
        let result = await inner.execute(request, timeout: timeout)
        if case .success(let response) = result { print(method, response.status.code) }
        return result
    }
}

@main
enum EmbeddingExample {
    static func main() async throws {
        QueueItLogger.setLogLevel(.info)
        var options = QueueItEngineOptions(platform: .android, inviteCode: nil)
        options.maxQueueWait = .seconds(600)
        options.requestTimeout = .seconds(5)
        let transport = AsyncHTTPTransport(connectTo: ConnectTarget(baseURL: "http://127.0.0.1:8080"))
        let engine = QueueItEngine(
            customerId: "acme", waitingRoomOrAliasId: "launch", queueListener: LaunchListener(),
            options: options, waitingRoomDomain: "queue.acme.example", queuePathPrefix: "waiting",
            transport: CountingTransport(inner: transport))
        if let result = await engine.tryPass(enqueueKey: "vip-1") {
            switch result.redirectType {
            case .queue: await engine.showQueue(queueTryPassResult: result)
            default: print("no queue:", result.redirectType.rawValue, result.isPassedThrough)
            }
        }
        await engine.runWithEnqueueToken("a token from the app's backend")
        try await transport.shutdown()
    }
}
