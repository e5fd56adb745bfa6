/// Heap storage for values most visitors never need, keeping `VisitorMachine` small.
/// An indirect enum, not a class: the value semantics stay intact.
package indirect enum Boxed<Value: Sendable>: Sendable {
    case boxed(Value)

    package init(_ value: Value) { self = .boxed(value) }

    /// `box`'s value (or `empty` when there is none) changed by `change`, boxed again; nil
    /// when the result `isEmpty`, so a visitor without the rare fields pays one word.
    package static func updating(
        _ box: Boxed?, empty: Value, isEmpty: (Value) -> Bool, _ change: (inout Value) -> Void
    ) -> Boxed? {
        var value = box?.value ?? empty
        change(&value)
        return isEmpty(value) ? nil : Boxed(value)
    }

    package var value: Value {
        switch self {
        case .boxed(let value): value
        }
    }
}
