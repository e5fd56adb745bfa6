import Foundation

/// The scenario's text as it is written: keys with the field they came from in a comment
/// aligned on one column, comments, and the warnings that go with `# not modelled:` lines.
struct ScenarioLines: Sendable {
    private(set) var lines: [String] = []
    private(set) var warnings: [String] = []

    /// Where a key's comment starts, when the key is shorter.
    static let commentColumn = 36

    var text: String { lines.joined(separator: "\n") + "\n" }

    mutating func blank() { lines.append("") }

    mutating func raw(_ line: String) { lines.append(line) }

    mutating func comment(_ text: String, indent: Int = 0) {
        lines.append(String(repeating: " ", count: indent) + "# " + text)
    }

    mutating func section(_ name: String, indent: Int = 0) {
        lines.append(String(repeating: " ", count: indent) + name + ":")
    }

    mutating func key(_ name: String, _ value: String, _ source: String? = nil, indent: Int = 0) {
        var line = String(repeating: " ", count: indent) + name + ": " + value
        if let source {
            line += String(repeating: " ", count: max(2, Self.commentColumn - line.count)) + "# " + source
        }
        lines.append(line)
    }

    /// `# not modelled: Field = value (why)`, and the same as a warning.
    mutating func notModelled(_ field: String, _ value: String, _ why: String, indent: Int) {
        let words = "not modelled: \(field) = \(value) (\(why))"
        comment(words, indent: indent)
        warnings.append(words)
    }

    mutating func warn(_ text: String) { warnings.append(text) }
}

/// A duration as a scenario writes it, in its largest whole unit: `2h`, `90m`, `45s`, `250ms`.
enum ScenarioDuration {
    static func text(milliseconds: Int64) -> String {
        if milliseconds == 0 { return "0s" }
        if milliseconds % 3_600_000 == 0 { return "\(milliseconds / 3_600_000)h" }
        if milliseconds % 60_000 == 0 { return "\(milliseconds / 60_000)m" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }
}

/// The event's times on the run's clock: second 0 is `PreQueueStartTime` when the event has
/// one no later than `EventStartTime`, else `EventStartTime`.
struct EventTimeline: Sendable {
    var secondZero: QueueItInstant?
    var eventStart: QueueItInstant?
    var eventEnd: QueueItInstant?
    var eventStartMilliseconds: Int64 = 0
    var eventEndMilliseconds: Int64?
    var secondZeroNote: String
    var warnings: [String] = []

    init(_ event: QueueItEvent) throws(ImportFailure) {
        let preQueue = try Self.instant(event, "PreQueueStartTime")
        eventStart = try Self.instant(event, "EventStartTime")
        let end = try Self.instant(event, "EventEndTime")
        switch (preQueue, eventStart) {
        case (let pre?, let start?) where pre <= start:
            secondZero = pre
            eventStartMilliseconds = start.millisecondsSinceEpoch - pre.millisecondsSinceEpoch
            secondZeroNote =
                "The run's second 0 is PreQueueStartTime \(pre) (the pre-queue opens); eventStart is EventStartTime."
        case (let pre?, let start?):
            secondZero = start
            secondZeroNote =
                "The run's second 0 is EventStartTime \(start); the pre-queue is left out (it opens after it)."
            warnings.append(
                "PreQueueStartTime \(pre) is after EventStartTime \(start): the pre-queue is left out, "
                    + "the run starts at the event start")
        case (nil, let start?):
            secondZero = start
            secondZeroNote = "The run's second 0 is EventStartTime \(start) (the event has no PreQueueStartTime)."
        case (let pre?, nil):
            secondZero = pre
            secondZeroNote = "The run's second 0 is PreQueueStartTime \(pre); the event has no EventStartTime."
            warnings.append("the event has no EventStartTime: the room releases from the run's start")
        case (nil, nil):
            secondZeroNote = "The event has no EventStartTime: the room releases from the run's start."
            warnings.append("the event has no EventStartTime: the room releases from the run's start")
        }
        guard let end, let zero = secondZero else { return }
        let fromZero = end.millisecondsSinceEpoch - zero.millisecondsSinceEpoch
        if fromZero > eventStartMilliseconds {
            eventEnd = end
            eventEndMilliseconds = fromZero
        } else {
            warnings.append("EventEndTime \(end) is not after the event start: the after-event room is left out")
        }
    }

    private static func instant(_ event: QueueItEvent, _ field: String) throws(ImportFailure) -> QueueItInstant? {
        guard let text = event[field] else { return nil }
        guard let instant = QueueItValue.instant(text) else {
            throw ImportFailure(
                "\(field) `\(EventFieldCatalog.shown(field, text))` is not a time; expected ISO-8601 UTC such as "
                    + "2026-05-01T09:00:00.0000000Z or \\/Date(1777626000000)\\/")
        }
        return instant
    }
}

/// Customer and event ids as they go into URLs and scenario keys: letters, digits and `-`
/// (Queue-it's event ids are letters and digits, at most 20; the SDK's room id allows `-` too).
package enum ImportIdentifiers {
    package static func check(_ value: String, option: String) throws(ImportFailure) {
        guard !value.isEmpty, value.count <= 50,
            value.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") })
        else {
            throw ImportFailure(
                "\(option) must be letters, digits and `-` (at most 50), as Queue-it's ids are; found "
                    + "`\(EventFieldCatalog.shown(option, value))`")
        }
    }
}
