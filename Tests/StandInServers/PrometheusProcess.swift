import Foundation

/// Debian's Prometheus on loopback, for the tests that check queuesim's metrics with the real
/// thing: started on a free port with a fresh TSDB, stopped (and its folder removed) by `stop`.
/// Every wait is bounded.
package final class PrometheusProcess {
    package static let binary = "/usr/bin/prometheus"
    package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }
    package static let missing = "Prometheus is not installed (apt-get install prometheus): this check did not run"

    package let port: Int
    private let process = Process()
    private let folder: URL

    /// `scrape`: a `host:port` to scrape every second as job `queuesim`.
    package init(scrape: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-prom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try Self.freePort()
        var config = """
            global: { scrape_interval: 1s, evaluation_interval: 1s }
            storage: { tsdb: { out_of_order_time_window: 1d } }

            """
        if let scrape {
            config += "scrape_configs:\n  - { job_name: queuesim, static_configs: [ { targets: [\"\(scrape)\"] } ] }\n"
        }
        let configFile = folder.appendingPathComponent("prometheus.yml")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [
            "--config.file=\(configFile.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--web.enable-remote-write-receiver",
        ]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? get("/-/ready")) != nil { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        stop()
        throw CocoaError(
            .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "Prometheus did not get ready in 30 s"])
    }

    package var remoteWriteURL: String { "http://127.0.0.1:\(port)/api/v1/write" }

    package func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    /// An instant query's vector as (labels, value) pairs.
    package func query(_ expression: String) throws -> [([String: String], Double)] {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "query", value: expression)]
        let data = try get("/api/v1/query?" + (components.percentEncodedQuery ?? ""))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]]
        else { return [] }
        return result.compactMap { entry in
            guard let metric = entry["metric"] as? [String: String], let value = entry["value"] as? [Any],
                value.count == 2, let text = value[1] as? String, let number = Double(text)
            else { return nil }
            return (metric, number)
        }
    }

    /// Polls `expression` until `accept` takes its result, at most `seconds`.
    package func waitFor(
        _ expression: String, seconds: Double = 30, _ accept: ([([String: String], Double)]) -> Bool
    ) throws -> [([String: String], Double)] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [([String: String], Double)] = []
        while Date() < deadline {
            last = try query(expression)
            if accept(last) { return last }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return last
    }

    private func get(_ path: String) throws -> Data {
        // curl keeps this free of URLSession's run-loop quirks on Linux; bounded by --max-time.
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sf", "--max-time", "5", "http://127.0.0.1:\(port)\(path)"]
        let output = Pipe()
        curl.standardOutput = output
        curl.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "GET \(path) failed"])
        }
        return data
    }

    /// A port nobody listens on now (bound and released).
    package static func freePort() throws -> Int {
        let socket = streamSocket()
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

private func streamSocket() -> Int32 { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }

/// Prometheus's own tools for the metrics tests, each bounded in time.
package enum PrometheusTools {
    /// `promtool check metrics` on `text` (it reads standard input): its exit status and what it said.
    package static func checkMetrics(_ text: String) -> (status: Int32, said: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        guard (try? process.run()) != nil else { return (-1, "promtool did not start") }
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    /// The body curl gets with `arguments` (at most 5 s), "" when it cannot run.
    package static func curl(_ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "5"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        guard (try? process.run()) != nil else { return "" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
