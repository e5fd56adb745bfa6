import Foundation

/// `import queue-it-stats`: one request per statistics type, each answer saved as it arrives in
/// the raw folder beside `stats.csv` (`stats.csv.raw/<type>.json`), so an import that stopped
/// (SIGINT, a failure, the rate limit) resumes where it stopped and `stats.csv` can be re-read
/// from the answers later. The folder's `request.json` says what the answers are for; answers
/// for another event or range are never mixed in.
package struct StatisticsImport: Sendable {
    /// What the answers in a raw folder were asked for (no key: only ids and times).
    package struct Request: Codable, Equatable, Sendable {
        package var customer: String
        package var event: String
        package var from: String
        package var to: String

        package init(customer: String, event: String, from: QueueItInstant, to: QueueItInstant) {
            self.customer = customer
            self.event = event
            self.from = from.description
            self.to = to.description
        }
    }

    package var request: Request
    package var types: [String]
    package var rawFolder: String
    package var api: QueueItAdminAPI
    package var progress: @Sendable (String) -> Void

    package init(
        request: Request, types: [String], rawFolder: String, api: QueueItAdminAPI,
        progress: @escaping @Sendable (String) -> Void
    ) {
        self.request = request
        self.types = types
        self.rawFolder = rawFolder
        self.api = api
        self.progress = progress
    }

    /// Every type's answer: those already in the raw folder as they are, the others fetched
    /// (within the API's budget) and saved one by one.
    package func answers() async throws(ImportFailure) -> [String: StatisticsAnswer] {
        try ImportFiles.makeFolder(rawFolder)
        try claimFolder()
        var answers: [String: StatisticsAnswer] = [:]
        var kept = 0
        for type in types {
            let path = Self.answerPath(rawFolder, type)
            if ImportFiles.exists(path), let saved = try? StatisticsAnswer.parse(ImportFiles.read(path), source: path) {
                answers[type] = saved
                kept += 1
            }
        }
        if kept > 0 {
            progress("\(kept) of \(types.count) answers kept from an earlier import in \(rawFolder)")
        }
        var fetched = kept
        for type in types where answers[type] == nil {
            let bytes = try await api.get(Self.path(request, type), event: request.event)
            let answer: StatisticsAnswer
            do {
                answer = try StatisticsAnswer.parse(bytes, source: "the answer for \(type)")
            } catch {
                throw error.with(status: .aborted)
            }
            try ImportFiles.write(bytes, to: Self.answerPath(rawFolder, type))
            answers[type] = answer
            fetched += 1
            progress("\(type): \(answer.sums.count) entries (\(fetched) of \(types.count))")
        }
        return answers
    }

    /// `/event/{eventId}/queue/statistics/details/{type}?from=…&to=…`.
    package static func path(_ request: Request, _ type: String) -> String {
        "/event/\(request.event)/queue/statistics/details/\(type)?from=\(request.from)&to=\(request.to)"
    }

    package static func answerPath(_ folder: String, _ type: String) -> String {
        PathText.appending("\(type).json", to: folder)
    }

    package static func requestPath(_ folder: String) -> String {
        PathText.appending("request.json", to: folder)
    }

    /// Writes `request.json`, or checks that the one there is this request's.
    private func claimFolder() throws(ImportFailure) {
        let path = Self.requestPath(rawFolder)
        if ImportFiles.exists(path) {
            let saved = try? JSONDecoder().decode(Request.self, from: Data(ImportFiles.read(path)))
            guard saved == request else {
                let what =
                    saved.map { "event \($0.event) of \($0.customer), \($0.from) to \($0.to)" } ?? "another request"
                throw ImportFailure(
                    "\(rawFolder) holds the answers of \(what); delete the folder or give another --out")
            }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(request) else { return }
        try ImportFiles.write(Array(data) + [UInt8(ascii: "\n")], to: path)
    }

    /// The answers saved in a folder (`--from-file DIR`): the types of `types` that have a
    /// `<type>.json`, and the folder's `request.json` when there is one.
    package static func saved(in folder: String, types: [String]) throws(ImportFailure) -> (
        answers: [String: StatisticsAnswer], request: Request?
    ) {
        guard ImportFiles.isFolder(folder) else {
            throw ImportFailure(
                "--from-file \(folder) is not a folder; give the folder of saved answers (<type>.json), "
                    + "such as stats.csv.raw")
        }
        var answers: [String: StatisticsAnswer] = [:]
        for type in types where ImportFiles.exists(answerPath(folder, type)) {
            let path = answerPath(folder, type)
            answers[type] = try StatisticsAnswer.parse(ImportFiles.read(path), source: path)
        }
        guard !answers.isEmpty else {
            throw ImportFailure(
                "\(folder) holds no saved answers (queueinflow.json, queueoutflow.json, …); "
                    + "it is written by import queue-it-stats beside stats.csv")
        }
        let requestFile = requestPath(folder)
        let request =
            ImportFiles.exists(requestFile)
            ? try? JSONDecoder().decode(Request.self, from: Data(ImportFiles.read(requestFile))) : nil
        return (answers, request)
    }
}
