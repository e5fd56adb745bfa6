/// What only some visitors carry, kept off the machine's inline size: the hybrid flow's parts
/// and the queue page's cookies in one box, and the enqueue machine on the heap.
extension VisitorMachine {
    struct Hybrid: Sendable {
        /// Present in the `.protectedApi` flow; parked while the visitor is in the waiting room.
        var protectedApi: ProtectedApiMachine?
        /// The connector's redirect, which replaces the configured waiting room.
        var redirectInstruction: QueueRedirectInstruction?
        /// The WebView's cookies, kept from one queue page visit to the next (a restart): the
        /// SDK does not clear them. The navigator holds them during a visit.
        var queueCookies = CookieJar()
        var isEmpty: Bool { protectedApi == nil && redirectInstruction == nil && queueCookies.isEmpty }
    }

    var queueCookies: CookieJar {
        get { hybrid?.value.queueCookies ?? CookieJar() }
        set {
            // No box for an empty jar that had none.
            guard hybrid != nil || !newValue.isEmpty else { return }
            setHybrid { $0.queueCookies = newValue }
        }
    }

    var protectedApi: ProtectedApiMachine? {
        get { hybrid?.value.protectedApi }
        set { setHybrid { $0.protectedApi = newValue } }
    }

    var redirectInstruction: QueueRedirectInstruction? {
        get { hybrid?.value.redirectInstruction }
        set { setHybrid { $0.redirectInstruction = newValue } }
    }

    mutating func setHybrid(_ change: (inout Hybrid) -> Void) {
        hybrid = .updating(hybrid, empty: Hybrid(), isEmpty: \.isEmpty, change)
    }

    /// The waiting room the enqueue call goes to (without building the whole call).
    var enqueueAddress: WaitingRoomAddress {
        redirectInstruction?.address ?? configuration.address
    }

    /// The enqueue call for this run: the connector's waiting room, else the configured one.
    var enqueueParameters: EnqueueParameters {
        guard let instruction = redirectInstruction else { return configuration.enqueueParameters }
        return configuration.enqueueParameters(
            for: instruction.address, enqueueToken: instruction.enqueueToken ?? configuration.enqueueToken,
            layoutName: instruction.layoutName ?? configuration.group.layoutName,
            language: instruction.language ?? configuration.group.language)
    }

    /// The enqueue stage's machine on the heap, changed in place: an indirect enum case was
    /// copied out of its box and boxed anew at every event (an allocation, and a retain and
    /// release of each of the machine's references). Value semantics hold: a box that a copy of
    /// this machine shares is copied before it is changed (`makeUnique`).
    final class EnqueueBox: @unchecked Sendable {
        var machine: EnqueueMachine
        init(_ machine: EnqueueMachine) { self.machine = machine }

        static func makeUnique(_ box: inout EnqueueBox) {
            if !isKnownUniquelyReferenced(&box) { box = EnqueueBox(box.machine) }
        }
    }
}
