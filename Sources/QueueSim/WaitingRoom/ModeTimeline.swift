import QueueClientCore

/// The room's mode as a function of run time: the configured mode, overridden by scripted
/// `mode` faults inside their windows `[from, to)`. Where windows overlap, the rule listed
/// last wins. The script is known up front, so the whole timeline is precomputed.
struct ModeTimeline: Sendable {
    struct Segment: Sendable, Equatable {
        var startNanoseconds: Int64
        var mode: RoomMode
    }

    /// Sorted by start; the first starts at 0; the last runs forever.
    let segments: [Segment]

    init(baseMode: RoomMode, faults: [FaultRule]) {
        let modeRules: [(from: Int64, to: Int64, mode: RoomMode)] = faults.compactMap { rule in
            guard case .mode(let mode) = rule.effect else { return nil }
            return (rule.from.wholeNanoseconds, rule.to?.wholeNanoseconds ?? .max, mode)
        }
        var breakpoints = Set<Int64>([0])
        for rule in modeRules {
            breakpoints.insert(max(0, rule.from))
            if rule.to != .max { breakpoints.insert(max(0, rule.to)) }
        }
        var built: [Segment] = []
        for start in breakpoints.sorted() {
            let mode = modeRules.last(where: { $0.from <= start && start < $0.to })?.mode ?? baseMode
            if built.last?.mode != mode { built.append(Segment(startNanoseconds: start, mode: mode)) }
        }
        segments = built
    }

    func mode(atNanoseconds time: Int64) -> RoomMode {
        segments[segmentIndex(atNanoseconds: time)].mode
    }

    /// The start of the first segment after the one holding `time` whose mode does not release
    /// the queue (`Int64.max` when there is none): until then a poll's mode is the one at `time`'s
    /// as far as releasing goes.
    func releasingEndsNanoseconds(after time: Int64) -> Int64 {
        var index = segmentIndex(atNanoseconds: time) + 1
        while index < segments.count {
            if !segments[index].mode.releasesQueue { return segments[index].startNanoseconds }
            index += 1
        }
        return .max
    }

    func segmentIndex(atNanoseconds time: Int64) -> Int {
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].startNanoseconds <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

extension RoomMode {
    /// Modes in which the queue moves at the outflow rate. In the others every visitor is let
    /// through at once with a token of that redirect type.
    var releasesQueue: Bool { self == .queue || self == .safetynet }
}
