/// A count per second; reads of seconds never counted are zero.
///
/// Stored in blocks of `blockSeconds`, made only for blocks that hold a count: a virtual run
/// that jumps over a month of idle time costs no memory for it (a flat array cost 8 bytes per
/// idle second per column, 75 GB for a long pause).
struct PerSecondCounts {
    private static let blockSeconds = 1024
    /// Block numbers (second / blockSeconds), ascending, and their counts.
    private var blockNumbers: [Int] = []
    private var blocks: [[Int]] = []
    private(set) var total = 0
    /// One past the latest second counted.
    private(set) var count = 0

    mutating func add(at second: Int, _ amount: Int = 1) {
        let (number, offset) = second.quotientAndRemainder(dividingBy: Self.blockSeconds)
        // Counts mostly arrive in time order: the last block is nearly always the one.
        let index: Int
        if let last = blockNumbers.last, last == number {
            index = blockNumbers.count - 1
        } else {
            index = position(ofBlock: number)
            if index == blockNumbers.count || blockNumbers[index] != number {
                blockNumbers.insert(number, at: index)
                blocks.insert(Array(repeating: 0, count: Self.blockSeconds), at: index)
            }
        }
        blocks[index][offset] += amount
        total += amount
        count = max(count, second + 1)
    }

    /// Every second with a non-zero count, ascending (only the blocks that exist are walked).
    var nonZero: [(second: Int, count: Int)] {
        var result: [(second: Int, count: Int)] = []
        for (number, block) in zip(blockNumbers, blocks) {
            for (offset, count) in block.enumerated() where count != 0 {
                result.append((number * Self.blockSeconds + offset, count))
            }
        }
        return result
    }

    subscript(second: Int) -> Int {
        guard second >= 0 else { return 0 }
        let (number, offset) = second.quotientAndRemainder(dividingBy: Self.blockSeconds)
        let index = position(ofBlock: number)
        guard index < blockNumbers.count, blockNumbers[index] == number else { return 0 }
        return blocks[index][offset]
    }

    /// The first index whose block number is not below `number`.
    private func position(ofBlock number: Int) -> Int {
        var low = 0
        var high = blockNumbers.count
        while low < high {
            let middle = (low + high) / 2
            if blockNumbers[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
