import NIOCore

/// The other addresses of a host met mid-run, tried in turn when a connect fails. DNS gives a
/// host every address it has (`MidRunHosts`), and a phone's stack moves on to the next one when
/// one cannot be connected to (Happy Eyeballs, RFC 8305, tries them staggered; one after the
/// other within the connect's own timeout is what a load generator can do without doubling its
/// connects). Only connects to an endpoint with `fallbackAddresses` are tracked, so a run whose
/// hosts have one address each pays nothing.
///
/// Loop-confined, as the pool that keeps it.
struct ConnectAddressFallback {
    private struct Attempt {
        /// The next of the endpoint's `fallbackAddresses` to try.
        var next: Int
        /// When the connect's timeout ends, whatever address it is on.
        var deadline: NIODeadline
    }

    /// By `ConnectionID.index`, while its connect is under way.
    private var attempts: [Int: Attempt] = [:]

    var isEmpty: Bool { attempts.isEmpty }

    /// A connect began on `endpoint`'s first address.
    mutating func started(_ id: ConnectionID, to endpoint: LiveEndpoint, timeout: TimeAmount) {
        guard !endpoint.fallbackAddresses.isEmpty else { return }
        attempts[id.index] = Attempt(next: 0, deadline: .now() + timeout)
    }

    /// The connect is over (connected, or failed with nothing left to try).
    mutating func ended(_ id: ConnectionID) {
        attempts[id.index] = nil
    }

    /// After a failed connect: `endpoint` at its next address and the time left, or nil when
    /// every address was tried or the timeout is spent.
    mutating func next(after id: ConnectionID, of endpoint: LiveEndpoint) -> (
        endpoint: LiveEndpoint, timeout: TimeAmount
    )? {
        guard var attempt = attempts[id.index] else { return nil }
        let left = attempt.deadline - .now()
        let addressLeft = attempt.next < endpoint.fallbackAddresses.count
        guard addressLeft, left > TimeAmount.zero else {
            attempts[id.index] = nil
            return nil
        }
        var moved = endpoint
        moved.address = endpoint.fallbackAddresses[attempt.next]
        attempt.next += 1
        attempts[id.index] = attempt
        return (moved, left)
    }
}
