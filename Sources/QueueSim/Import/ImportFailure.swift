/// Why an import stopped, in the words a user reads on stderr, with the exit code it ends in:
/// 2 when what was given is wrong (a file that is not an event, an unknown event, an API key the
/// API refuses, an option out of range), 3 when the answers could not be had or the files not
/// written (unreachable, no answer in time, a server error), 130 when interrupted.
/// The API key is never in a message: texts from a server are redacted and cut to one line.
package struct ImportFailure: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package var status: RunExitStatus

    package init(_ message: String, status: RunExitStatus = .invalidInput) {
        self.message = message
        self.status = status
    }

    package var description: String { message }

    /// The same failure with another exit code (a file's parse error, met in an API answer,
    /// is the API's fault: 3).
    package func with(status: RunExitStatus) -> ImportFailure { ImportFailure(message, status: status) }

    static func unreadable(_ source: String, _ why: String) -> ImportFailure {
        ImportFailure("\(source): \(why)")
    }

    /// Queue-it's error shape, in a body or as an HTTP status: what it means for the user.
    static func answered(
        status: Int, source: String, text: String, event: String?
    ) -> ImportFailure {
        let said = text.isEmpty ? "" : ": \(text)"
        switch status {
        case 401, 403:
            return ImportFailure(
                "the Queue-it API at \(source) refused the API key (\(status)\(said)); check QUEUEIT_API_KEY "
                    + "(a key of this customer with access to the event)")
        case 404:
            let what = event.map { "no event `\($0)`" } ?? "nothing at this address"
            return ImportFailure(
                "the Queue-it API at \(source) has \(what) (404\(said)); check --customer, --event and --api-base")
        case 429:
            return ImportFailure(
                "the Queue-it API at \(source) kept answering 429 (too many requests\(said)); try again in a few minutes",
                status: .aborted)
        default:
            return ImportFailure("the Queue-it API at \(source) answered \(status)\(said)", status: .aborted)
        }
    }

    /// A server's text as one printable line of at most 200 characters, credentials redacted.
    static func printable(_ text: String) -> String {
        PushFailure.firstLine(text)
    }
}
