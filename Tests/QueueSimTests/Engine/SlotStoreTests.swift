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
}
