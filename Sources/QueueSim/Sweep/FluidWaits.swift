/// The fluid model's whole distribution of waits for one outflow, when nobody leaves the queue
/// early: the sweep's fluid wait (`FluidQueue.waitPercentile`) and `validate`'s estimate
/// (`FluidEstimate`) both read it, so several questions (p50, p95, the share within maxWait,
/// whether a threshold holds) are answered from one pass.
struct FluidWaits: Sendable {
    /// Visitors who arrived by the event start, released in a random order from it: each
    /// distinct head start (event start − arrival) with the number of slices that had it.
    let preQueueOffsets: [(offset: Double, slices: Int)]
    /// Visitors in the pre-queue.
    let preQueue: Double
    /// The waits of the slices that arrived after the event start, sorted.
    let laterWaits: [Double]
    /// Slices in all (the pre-queue's and the later ones).
    let slices: Int
    /// The most visitors in the queue at once, and when (seconds since the run's origin).
    let peakQueue: Double
    let peakQueueAt: Double
    /// When the last visitor leaves the queue (seconds since the run's origin).
    let emptiesAt: Double
    let model: FluidQueue

    /// The share of visitors waiting at most `wait` seconds.
    func share(within wait: Double) -> Double {
        var count = 0.0
        for (offset, slices) in preQueueOffsets {
            let releasedBy = model.outflow.released(from: model.eventStart, to: model.eventStart + wait - offset)
            let share = preQueue > 0 ? min(1, max(0, releasedBy / preQueue)) : (wait >= offset ? 1 : 0)
            count += share * Double(slices)
        }
        // The number of later waits at most `wait` (they are sorted).
        var low = 0
        var high = laterWaits.count
        while low < high {
            let middle = (low + high) / 2
            if laterWaits[middle] <= wait { low = middle + 1 } else { high = middle }
        }
        return (count + Double(low)) / Double(slices)
    }

    /// The smallest wait that `fraction` of the visitors do not exceed (1 for the longest).
    func percentile(_ fraction: Double) -> Double {
        let preQueueEnd = model.outflow.finish(from: model.eventStart, releasing: preQueue)
        var low = 0.0
        var high = max(
            preQueueOffsets.map(\.offset).max().map { $0 + preQueueEnd - model.eventStart } ?? 0,
            laterWaits.last ?? 0)
        for _ in 0..<64 where high - low > 1e-6 {
            let middle = (low + high) / 2
            if share(within: middle) >= fraction - 1e-12 { high = middle } else { low = middle }
        }
        return high
    }
}

extension FluidQueue {
    /// When each slice's middle visitor arrives (seconds since the run's origin): the plan cut
    /// into `chunks` equal slices, computed once for every outflow tried.
    func sliceArrivals() -> [Double] {
        let slice = visitors / Double(Self.chunks)
        return (0..<Self.chunks).map { arrivalTime(ofVisitor: (Double($0) + 0.5) * slice) }
    }

    /// The waits at this model's outflow; nil for a plan without visitors or a room that stops
    /// releasing for good.
    func waits() -> FluidWaits? { waits(sliceArrivals: sliceArrivals()) }

    /// The waits at this model's outflow, given `sliceArrivals()` (of any model with the same
    /// arrivals): a slice of Δ visitors arriving at a leaves at max(a, previous leave) + the
    /// time the schedule takes to release Δ (Lindley's recursion on the fluid), the pre-queue
    /// first, in a random order from the event start.
    func waits(sliceArrivals arrivals: [Double]) -> FluidWaits? {
        let total = visitors
        guard total > 0, !arrivals.isEmpty else { return nil }
        let slice = total / Double(arrivals.count)
        var offsets: [(offset: Double, slices: Int)] = []
        for arrival in arrivals where arrival <= eventStart {
            let offset = eventStart - arrival
            if let last = offsets.last, last.offset == offset {
                offsets[offsets.count - 1].slices += 1
            } else {
                offsets.append((offset, 1))
            }
        }
        let preQueueSlices = offsets.reduce(0) { $0 + $1.slices }
        let preQueue = Double(preQueueSlices) * slice
        let preQueueEnd = outflow.finish(from: eventStart, releasing: preQueue)
        guard preQueueEnd.isFinite else { return nil }
        var peak = (queue: preQueue, at: eventStart)
        var laterWaits: [Double] = []
        var leaves: [Double] = []
        var firstStillQueued = 0
        var lastLeave = preQueueEnd
        for arrival in arrivals where arrival > eventStart {
            let begin = max(arrival, lastLeave)
            let leave = outflow.finish(from: begin, releasing: slice)
            guard leave.isFinite else { return nil }
            // The slice's middle visitor stands for it.
            laterWaits.append(outflow.finish(from: begin, releasing: slice / 2) - arrival)
            leaves.append(leave)
            lastLeave = leave
            // In the queue when this slice arrives: what is left of the pre-queue, and the later
            // slices not yet gone (leaves are in arrival order: first come, first served).
            while firstStillQueued < leaves.count - 1, leaves[firstStillQueued] <= arrival { firstStillQueued += 1 }
            let preQueueLeft = max(0, preQueue - outflow.released(from: eventStart, to: arrival))
            let queue = preQueueLeft + Double(leaves.count - firstStillQueued) * slice
            if queue > peak.queue { peak = (queue, arrival) }
        }
        return FluidWaits(
            preQueueOffsets: offsets, preQueue: preQueue, laterWaits: laterWaits.sorted(), slices: arrivals.count,
            peakQueue: min(peak.queue, total), peakQueueAt: peak.at, emptiesAt: lastLeave,
            model: self)
    }
}
