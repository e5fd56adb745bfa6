/// A count per second; reads of seconds never counted are zero.
///
/// Stored in blocks of `blockSeconds`, made only for blocks that hold a count: a virtual run
/// that jumps over a month of idle time costs no memory for it (a flat array cost 8 bytes per
/// idle second per column, 75 GB for a long pause). Before its first block, a column counts
/// its first `sparseLimit` seconds as a list of pairs: a group of a few visitors keeps a few
/// dozen columns (metrics.prom's), and an 8 KiB block each made 2,000 such groups cost 80 MB.
struct PerSecondCounts {
    private static let blockSeconds = 1024
    private static let sparseLimit = 32
    /// The counts while there are no blocks: one pair per second counted, in the order first counted.
    private var sparse: [(second: Int, count: Int)] = []
    /// Blocks of `blockSeconds` counts, one after the other in the order they were first used.
    private var storage: [Int] = []
    /// Where block `n` (seconds `n × blockSeconds …`) starts in `storage`, −1 when it has no
    /// count: a lookup is one load, not a search (a virtual run counts ~80 times per visitor,
    /// mostly seconds ahead of the clock). 4 bytes per block up to the latest: a year of
    /// seconds is 31,000 blocks.
    private var blockStarts: [Int32] = []
    private(set) var total = 0
    /// One past the latest second counted.
    private(set) var count = 0

    mutating func add(at second: Int, _ amount: Int = 1) {
        if blockStarts.isEmpty {
            if let index = sparse.firstIndex(where: { $0.second == second }) {
                sparse[index].count += amount
                total += amount
                count = max(count, second + 1)
                return
            }
            if sparse.count < Self.sparseLimit {
                sparse.append((second, amount))
                total += amount
                count = max(count, second + 1)
                return
            }
            moveSparseIntoBlocks()
        }
        addToBlock(at: second, amount)
    }

    /// Counts the pairs again into blocks (the first block ends the list).
    private mutating func moveSparseIntoBlocks() {
        let pairs = sparse
        sparse = []
        for pair in pairs {
            addToBlock(at: pair.second, pair.count)
            total -= pair.count
        }
    }

    private mutating func addToBlock(at second: Int, _ amount: Int) {
        let number = second / Self.blockSeconds
        if number >= blockStarts.count {
            blockStarts.append(contentsOf: repeatElement(-1, count: number + 1 - blockStarts.count))
        }
        var start = Int(blockStarts[number])
        if start < 0 {
            start = storage.count
            storage.append(contentsOf: repeatElement(0, count: Self.blockSeconds))
            blockStarts[number] = Int32(start)
        }
        storage[start + second % Self.blockSeconds] += amount
        total += amount
        count = max(count, second + 1)
    }

    /// Adds 1 in the second of each of `instants` instants `first + k × period` (whole nanoseconds
    /// from the run's origin, `first ≥ 0`, `period > 0`): a chain of forecast polls, which a
    /// virtual run counts by the tens of millions. The same counts as `add(at:)` per instant,
    /// with the block found once per block instead of once per instant, and no uniqueness
    /// check of the storage per instant.
    mutating func addProgression(firstNanoseconds first: Int64, periodNanoseconds period: Int64, count instants: Int) {
        precondition(first >= 0 && period > 0 && instants >= 0)
        guard instants > 0 else { return }
        if blockStarts.isEmpty { moveSparseIntoBlocks() }
        let blockNanoseconds = Int64(Self.blockSeconds) * 1_000_000_000
        var instant = first
        var remaining = instants
        while remaining > 0 {
            let second = Int(instant / 1_000_000_000)
            let number = second / Self.blockSeconds
            // The instants that fall in this block, this one included.
            let blockEnd = Int64(number + 1) * blockNanoseconds
            let inBlock = min(remaining, Int((blockEnd - 1 - instant) / period) + 1)
            addToBlock(at: second, 0)
            let start = Int(blockStarts[number]) - number * Self.blockSeconds
            storage.withUnsafeMutableBufferPointer { counts in
                var at = instant
                for _ in 0..<inBlock {
                    counts[start + Int(at / 1_000_000_000)] += 1
                    at += period
                }
            }
            instant += Int64(inBlock) * period
            remaining -= inBlock
        }
        total += instants
        count = max(count, Int((instant - period) / 1_000_000_000) + 1)
    }

    /// Every second with a non-zero count, ascending (only the blocks that exist are walked).
    var nonZero: [(second: Int, count: Int)] {
        if blockStarts.isEmpty { return sparse.filter { $0.count != 0 }.sorted { $0.second < $1.second } }
        var result: [(second: Int, count: Int)] = []
        for (number, start) in blockStarts.enumerated() where start >= 0 {
            for offset in 0..<Self.blockSeconds where storage[Int(start) + offset] != 0 {
                result.append((number * Self.blockSeconds + offset, storage[Int(start) + offset]))
            }
        }
        return result
    }

    subscript(second: Int) -> Int {
        guard second >= 0 else { return 0 }
        if blockStarts.isEmpty { return sparse.first { $0.second == second }?.count ?? 0 }
        let number = second / Self.blockSeconds
        guard number < blockStarts.count, blockStarts[number] >= 0 else { return 0 }
        return storage[Int(blockStarts[number]) + second % Self.blockSeconds]
    }
}
