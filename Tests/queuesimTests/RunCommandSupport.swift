import Foundation

/// `queuesim run` as a child process that may be sent SIGINT part-way, always bounded: a child
/// still running at the limit is killed and the test fails.
struct RunCommandProcess {
    typealias Result = QueueSimProcess.Result

    static func run(
        _ arguments: [String], interruptAfter: Duration? = nil, limit: Duration = .seconds(60),
        signal: Int32 = SIGINT
    ) throws -> Result {
        try QueueSimProcess.run(arguments, limit: limit, interruptAfter: interruptAfter, signal: signal)
    }

    /// A fresh, not yet existing report directory under the temporary folder.
    static func reportDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-out-\(UUID().uuidString)").path
    }

    /// The rows of a CSV report without its header, split on commas (the columns read here
    /// never hold quoted text).
    static func rows(_ directory: String, _ file: String) throws -> (header: [String], rows: [[String]]) {
        let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.isEmpty ? [] : lines.removeFirst()
        return (header, lines)
    }
}
