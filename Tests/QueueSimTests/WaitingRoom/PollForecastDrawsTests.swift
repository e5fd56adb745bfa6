import HTTPTypes
import QueueClientCore
import Testing

@testable import QueueSim

/// With latency jitter, a poll forecast answers each poll after the delay the room itself
/// would have drawn for that visitor's request, and only for visitors the room can tell apart.
@Suite("Poll forecasts with jitter")
struct PollForecastDrawsTests {
    private static let latency = LatencySettings(
        enqueue: .milliseconds(20), queuePage: .milliseconds(10), jitter: .milliseconds(8))

    private func room() -> WaitingRoomService {
        // 1/min: the visitors enqueued after the first wait for minutes.
        WaitingRoomService(configuration: RoomFixture.configuration(outflowPerMinute: 1, latency: Self.latency))
    }

    private func enqueue(_ service: WaitingRoomService, body: String, at seconds: Double) throws -> String {
        let reply = service.handle(
            RoomFixture.enqueueRequest(), body: RoomFixture.body(body), at: RoomFixture.at(seconds))
        let answer = try #require(reply.answer)
        let members = try #require(FlatJSONObject.parseMembers(Array(answer.body.utf8), keeping: ["QueueId"]))
        guard case .string(let queueId)? = members["QueueId"] else {
            Issue.record("no QueueId in \(answer.body)")
            return ""
        }
        return queueId
    }

    private func poll(_ service: WaitingRoomService, _ queueId: String, at seconds: Double) throws -> Duration {
        let reply = service.handle(
            RoomFixture.get("https://acme.queue-it.net/queue/acme/spring-launch?q=\(queueId)"), body: [],
            at: RoomFixture.at(seconds))
        let answer = try #require(reply.answer)
        #expect(answer.head.status.code == 200)
        return answer.delay
    }

    @Test("the forecast's k-th latency is the delay the room draws for the visitor's k-th poll")
    func forecastLatenciesAreTheRoomsDraws() throws {
        let forecaster = room()
        let handler = room()
        var queueIds: [String] = []
        for visitor in 0..<3 {
            let body = #"{"userId":"visitor-\#(visitor)","sdkVersion":"iOS-3.5.2"}"#
            queueIds.append(try enqueue(forecaster, body: body, at: Double(visitor)))
            #expect(try enqueue(handler, body: body, at: Double(visitor)) == queueIds[visitor])
        }
        let forecast = try #require(forecaster.pollForecast(queueId: queueIds[2]))
        let draws = try #require(forecast.draws)
        let forecastDelays = (0..<5).map { poll in
            forecaster.forecastLatencyNanoseconds(draws, poll: poll).map { Duration.nanoseconds($0) }
        }
        let handledDelays = try (0..<5).map { try poll(handler, queueIds[2], at: 10 + Double($0)) }
        #expect(forecastDelays == handledDelays.map { Optional($0) })
        // Jitter makes them differ (±8 ms around 10 ms, to the microsecond).
        #expect(Set(handledDelays).count > 1)
        // Counting the skipped polls keeps the visitor's next draw where the handler's is.
        forecaster.countForecastRequests(5, of: forecast)
        #expect(try poll(forecaster, queueIds[2], at: 20) == poll(handler, queueIds[2], at: 20))
        #expect(forecaster.requestCount == handler.requestCount)
    }

    /// A ticket whose enqueue named no user draws from the room's request count, which skipped
    /// polls would renumber for every such visitor: it gets no forecast.
    @Test("no forecast for a visitor the room cannot tell apart")
    func noForecastWithoutUserId() throws {
        let service = room()
        _ = try enqueue(service, body: #"{"userId":"first","sdkVersion":"iOS-3.5.2"}"#, at: 0)
        let anonymous = try enqueue(service, body: #"{"sdkVersion":"iOS-3.5.2"}"#, at: 1)
        #expect(service.pollForecast(queueId: anonymous) == nil)
    }
}
