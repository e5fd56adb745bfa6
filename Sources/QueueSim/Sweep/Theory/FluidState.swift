import Foundation

/// The moving part of `AbandonmentFluid.solve`: the blocks in queue order, the head, the
/// arrivals still to come and the comebacks on their way.
struct FluidState {
    let model: AbandonmentFluid
    /// Arrival time of each slice (equal masses `sliceMass`), in order.
    let arrivals: [Double]
    let sliceMass: Double
    let visitors: Double
    var nextArrival = 0
    var blocks: [FluidBlock] = []
    var head = 0
    /// The pre-queue's block index, while the event has not started.
    var preQueue: Int?
    /// Comebacks due, by step number: mass per generation.
    var returning: [Int: [Int: Double]] = [:]
    /// The comeback delay's quantile points (equal weights).
    let delays: [Double]

    init(model: AbandonmentFluid) {
        self.model = model
        visitors = model.fluid.visitors
        let count = max(1, model.slices)
        sliceMass = visitors / Double(count)
        let slice = sliceMass
        arrivals =
            visitors > 0 ? (0..<count).map { model.fluid.arrivalTime(ofVisitor: (Double($0) + 0.5) * slice) } : []
        let points = 16
        delays = model.comeback.map { back in (0..<points).map { back.after.quantile((Double($0) + 0.5) / 16) } } ?? []
    }

    /// Arrivals (and comebacks) up to `end` join the queue: before the event start into the
    /// pre-queue, after it each slice a block at the back.
    mutating func admit(until end: Double, now: Double) {
        while nextArrival < arrivals.count, arrivals[nextArrival] < end {
            admitSlice(at: arrivals[nextArrival])
            nextArrival += 1
        }
        let bucket = Int((now / model.step).rounded(.down))
        if let due = returning.removeValue(forKey: bucket) {
            for (generation, mass) in due.sorted(by: { $0.key < $1.key }) where mass > 0 {
                join(FluidComponent(mass: mass, arrival: now, generation: generation))
            }
        }
    }

    /// One slice of first attempts, its no-shows (`noShow`) a component of their own: in the
    /// pre-queue each joins its pool, after the event start the two are one block (a slice's
    /// visitors are served in a random order among themselves).
    private mutating func admitSlice(at arrival: Double) {
        guard model.noShow > 0 else {
            join(FluidComponent(mass: sliceMass, arrival: arrival, generation: 0))
            return
        }
        let parts = [
            FluidComponent(mass: sliceMass * (1 - model.noShow), arrival: arrival, generation: 0),
            FluidComponent(mass: sliceMass * model.noShow, arrival: arrival, generation: 0, noShow: true),
        ].filter { $0.mass > 0 }
        guard arrival <= model.fluid.eventStart else {
            blocks.append(FluidBlock(components: parts))
            return
        }
        for part in parts { join(part) }
    }

    private mutating func join(_ component: FluidComponent) {
        guard component.arrival <= model.fluid.eventStart else {
            blocks.append(FluidBlock(components: [component]))
            return
        }
        if preQueue == nil {
            preQueue = blocks.count
            blocks.append(FluidBlock(components: []))
        }
        // Pool arrival times into bins so the pre-queue stays a few components.
        let width = max(model.step, (model.fluid.eventStart - (arrivals.first ?? 0)) / Double(model.preQueueComponents))
        let index = preQueue!
        if let same = blocks[index].components.lastIndex(where: {
            $0.generation == component.generation && $0.noShow == component.noShow
                && abs($0.arrival - component.arrival) < width / 2
        }) {
            let old = blocks[index].components[same]
            let mass = old.mass + component.mass
            blocks[index].components[same].arrival =
                (old.arrival * old.mass + component.arrival * component.mass) / mass
            blocks[index].components[same].mass = mass
        } else {
            blocks[index].components.append(component)
        }
    }

    /// The room's releases between `start` and `end` go through the blocks from the head.
    mutating func serve(from start: Double, to end: Double) {
        let capacity = model.fluid.outflow.released(from: start, to: end)
        guard capacity > 0 else { return }
        var left = capacity
        while left > capacity * 1e-12, head < blocks.count {
            let clock = start + (1 - left / capacity) * (end - start)
            let block = blocks[head]
            let density = block.components.reduce(0.0) {
                $0 + $1.mass * model.costsATurn(clock - $1.arrival, noShow: $1.noShow)
            }
            let remaining = 1 - block.reached
            if density <= 1e-12 || remaining * density <= left {
                blocks[head].pieces.append((remaining, clock))
                blocks[head].reached = 1
                left -= remaining * max(0, density)
                head += 1
            } else {
                let share = left / density
                blocks[head].pieces.append((share, clock))
                blocks[head].reached += share
                left = 0
            }
        }
    }

    /// Visitors not yet reached who give up in this step; a share of them come back later.
    mutating func sendComebacks(from start: Double, to end: Double) {
        guard let comeback = model.comeback, !delays.isEmpty else { return }
        for index in head..<blocks.count {
            let unreached = 1 - blocks[index].reached
            for component in blocks[index].components
            where model.mayComeBack(component.generation, noShow: component.noShow) {
                let age = start - component.arrival
                guard age < model.maxWait, age + model.step > 0 else { continue }
                let patience = model.patience!
                let leaving =
                    component.mass * unreached
                    * (patience.survival(max(0, age)) - patience.survival(min(end - component.arrival, model.maxWait)))
                guard leaving > 0 else { continue }
                let share = leaving * comeback.share / Double(delays.count)
                for delay in delays {
                    let bucket = Int(((end + delay) / model.step).rounded(.down))
                    returning[bucket, default: [:]][component.generation + 1, default: 0] += share
                }
            }
        }
    }

    /// Visitors on the queue page at `time`: those not yet reached who are still there (not
    /// gone, not past maxWait).
    func waiting(at time: Double) -> Double {
        var total = 0.0
        for block in blocks[head...] {
            let unreached = 1 - block.reached
            for component in block.components where component.arrival <= time {
                total += component.mass * unreached * model.present(time - component.arrival, noShow: component.noShow)
            }
        }
        return total
    }

    /// Everything is decided: no arrival or comeback to come, and every visitor not yet
    /// reached has left or timed out.
    func isOver(at time: Double) -> Bool {
        guard nextArrival == arrivals.count, returning.isEmpty else { return false }
        for block in blocks[head...] {
            for component in block.components
            where model.present(time - component.arrival, noShow: component.noShow) > 1e-9 {
                return false
            }
        }
        return true
    }

    /// The blocks, those never reached with their rest marked as such.
    func closed() -> [FluidBlock] {
        blocks.map { block in
            var block = block
            if block.reached < 1 - 1e-12 { block.pieces.append((1 - block.reached, .infinity)) }
            return block
        }
    }
}
