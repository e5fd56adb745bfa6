import Testing

@testable import QueueClientCore
@testable import QueueSim

/// A virtual run keeps one slot per visitor waiting at once (docs/benchmarks.md, "Ten million
/// visitors"): these are the sizes that measurement was made with. A field added to a waiting
/// visitor shows here first, with the bytes it costs a million of them.
@Suite("a waiting visitor's size")
struct WaitingVisitorSizeTests {
    @Test func theSlotAndItsPartsStayWithinTheirMeasuredSizes() {
        #expect(MemoryLayout<InFlightVisitor?>.stride <= 216)
        #expect(MemoryLayout<VisitorMachine>.stride <= 184)
        #expect(MemoryLayout<VisitorResult>.stride <= 88)
        #expect(MemoryLayout<QueuePageNavigator>.stride <= 72)
        #expect(MemoryLayout<VisitorConfiguration>.stride <= 16)
        #expect(MemoryLayout<PackedText?>.size <= 21)
        #expect(MemoryLayout<RunInstant>.stride == 8)
    }
}
