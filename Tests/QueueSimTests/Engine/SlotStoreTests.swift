import Testing

@testable import QueueSim

/// `SlotStore` holds the visitors in flight of both runners: slot numbers are what events carry,
/// so reuse must be deterministic and a taken slot must stay out of circulation until released.
@Suite("SlotStore: visitors in flight by slot number")
struct SlotStoreTests {
    @Test("slots are numbered in order, and freed slots are reused last in, first out")
    func numberingAndReuse() {
        var store = SlotStore<String>()
        #expect(store.insert("a") == 0)
        #expect(store.insert("b") == 1)
        #expect(store.insert("c") == 2)
        #expect(store.take(0) == "a")
        store.release(0)
        #expect(store.take(2) == "c")
        store.release(2)
        // The last freed slot comes back first: the same run numbers its slots the same way.
        #expect(store.insert("d") == 2)
        #expect(store.insert("e") == 0)
        #expect(store.insert("f") == 3)
        #expect(store.capacity == 4)
        #expect(store[0] == "e" && store[1] == "b" && store[2] == "d" && store[3] == "f")
    }

    @Test("a taken slot is empty but not free until released; place puts an element back")
    func takeAndPlace() {
        var store = SlotStore<Int>()
        let slot = store.insert(7)
        #expect(store.take(slot) == 7)
        #expect(store[slot] == nil)
        #expect(store.take(slot) == nil)
        // Not released: a new element gets a new slot.
        #expect(store.insert(8) == slot + 1)
        #expect(store.place(9, at: slot) == slot)
        #expect(store[slot] == 9)
        #expect(store.place(10, at: nil) == slot + 2)
    }

    @Test("slots beyond one chunk (4,096) keep their elements when chunks are added")
    func acrossChunks() {
        var store = SlotStore<Int>()
        let slots = (0..<10_000).map { store.insert($0) }
        #expect(slots == Array(0..<10_000))
        #expect(store[4_095] == 4_095 && store[4_096] == 4_096 && store[9_999] == 9_999)
        #expect(store.take(5_000) == 5_000)
        store.release(5_000)
        #expect(store.insert(-1) == 5_000)
        #expect(store.capacity == 10_000)
    }

    @Test("a chunk whose slots are all freed gives its memory back; its slots still work after")
    func drainedChunksAreGivenBack() {
        var store = SlotStore<Int>()
        for value in 0..<10_000 { _ = store.insert(value) }
        #expect(store.chunksHeld == 3)
        // The first chunk drains (a queue letting its first visitors through).
        for slot in 0..<4_096 { _ = store.remove(slot) }
        #expect(store.chunksHeld == 2)
        // An event of a visitor gone may still name a slot of it: nothing there, no crash.
        #expect(store[17] == nil && store.take(17) == nil)
        #expect(store.modify(4_000) { $0 } == nil)
        #expect(store[4_096] == 4_096)
        // The last chunk drains while it is still being filled, then fills on.
        for slot in 8_192..<10_000 { _ = store.remove(slot) }
        #expect(store.chunksHeld == 1)
        // Reuse is last in, first out, as before: slot 9,999 was freed last.
        #expect(store.insert(-1) == 9_999)
        #expect(store.chunksHeld == 2)
        #expect(store[9_999] == -1 && store[8_192] == nil)
        for _ in 8_192..<9_999 { _ = store.insert(0) }
        // Then the first chunk's slots, 4,095 down to 0, and only then a new slot.
        #expect(store.insert(-2) == 4_095)
        #expect(store.chunksHeld == 3)
        #expect(store[4_095] == -2 && store[0] == nil)
        for _ in 0..<4_095 { _ = store.insert(0) }
        #expect(store.insert(-3) == 10_000)
        #expect(store[10_000] == -3 && store.capacity == 10_001)
    }
}
