import Testing

@testable import QueueSim

@Suite("Group picker")
struct GroupPickerTests {
    @Test("groups are picked in proportion to their weights (within 4σ)")
    func proportions() throws {
        let picker = try GroupPicker(weights: [80, 15, 5], seed: 42)
        let visitors = 100_000
        var counts = [0, 0, 0]
        for index in 0..<visitors { counts[picker.group(forVisitor: index)] += 1 }
        for (group, share) in [0.80, 0.15, 0.05].enumerated() {
            let sigma = (share * (1 - share) / Double(visitors)).squareRoot()
            #expect(abs(Double(counts[group]) / Double(visitors) - share) <= 4 * sigma, "group \(group)")
        }
    }

    @Test("a group of weight 0 is never picked, wherever it sits")
    func zeroWeight() throws {
        let picker = try GroupPicker(weights: [0, 1, 0, 2, 0], seed: 7)
        let picked = Set((0..<20_000).map { picker.group(forVisitor: $0) })
        #expect(picked == [1, 3])
    }

    @Test("a visitor's group depends on its index and the seed only")
    func perVisitorDeterminism() throws {
        let picker = try GroupPicker(weights: [1, 1, 1, 1], seed: 3)
        let forward = (0..<1000).map { picker.group(forVisitor: $0) }
        let backward = (0..<1000).reversed().map { picker.group(forVisitor: $0) }
        #expect(forward == backward.reversed())
        let otherSeed = try GroupPicker(weights: [1, 1, 1, 1], seed: 4)
        #expect(forward != (0..<1000).map { otherSeed.group(forVisitor: $0) })
    }

    @Test("no usable weight is an error")
    func noGroups() {
        #expect(throws: PlanError.noVisitorGroups) { try GroupPicker(weights: [], seed: 1) }
        #expect(throws: PlanError.noVisitorGroups) { try GroupPicker(weights: [0, -1, .nan], seed: 1) }
    }
}
