/// The part of a run a windowed threshold judges, written as a mapping in `thresholds:`:
/// `- { threshold: "unavailable < 5%", over: 30s, abortOnFail: true }`.
///
/// What a window counts: the visitors whose rows were written in it, each at the instant its
/// outcome was decided (`ended_at`), by second of the run (a row ending at 12.7 s is in second
/// 12). Ratios are shares of those visitors, counts count them, timings are their timings. The
/// figures are the run's own words (`ThresholdParser`): a windowed `wait.p95` is the 95th
/// percentile of the waits of the visitors who finished in the window.
package struct ThresholdWindow: Sendable, Equatable {
    package enum Span: Sendable, Equatable {
        /// `over: 30s`: every window of that length ending at a whole second of the run
        /// (sliding by one second), judged as soon as that second is over.
        case sliding(Duration)
        /// `during: 0s..2m`: one part of the run, from run start.
        case during(from: Duration, to: Duration)
        /// `after: 1m` or `after: eventStart` (the room's event start, resolved when the scenario
        /// is read): from that instant to the end of the run.
        case after(Duration)
    }

    package var span: Span
    /// Stop the run as soon as a window fails (exit 4).
    package var abortOnFail: Bool
    /// The fewest visitors a window's ratio or timing is judged on: below it one unlucky
    /// visitor would be a large share. Counts (`error.count`) are judged whatever the number.
    package var minVisitors: Int
    /// `over 30s`, `during 0s..2m`, `after eventStart`: how the threshold's source ends.
    package var text: String

    /// `minVisitors:` when the scenario does not set it.
    package static let defaultMinVisitors = 20

    package init(span: Span, abortOnFail: Bool = false, minVisitors: Int = Self.defaultMinVisitors, text: String) {
        self.span = span
        self.abortOnFail = abortOnFail
        self.minVisitors = minVisitors
        self.text = text
    }

    /// A window read back from `run.json` (`queuesim report`): its words as the run wrote them.
    /// `after eventStart` does not say when the event started; the page needs only the words.
    package init(words: String, abortOnFail: Bool, minVisitors: Int) {
        let parts = words.split(separator: " ", maxSplits: 1).map(String.init)
        let value = parts.count == 2 ? parts[1] : ""
        let bounds = value.components(separatedBy: "..").compactMap { ScenarioUnits.duration($0) }
        switch parts.first {
        case "over": span = .sliding(ScenarioUnits.duration(value) ?? .zero)
        case "during" where bounds.count == 2: span = .during(from: bounds[0], to: bounds[1])
        default: span = .after(ScenarioUnits.duration(value) ?? .zero)
        }
        self.abortOnFail = abortOnFail
        self.minVisitors = minVisitors
        text = words
    }

    /// Where the judged part of the run starts.
    package var start: Duration {
        switch span {
        case .sliding: .zero
        case .during(let from, _): from
        case .after(let from): from
        }
    }
}
