// The plain transport exists on Linux only (epoll, eventfd): elsewhere every run uses
// SwiftNIO's (`LiveTransport`).
#if os(Linux)
    import Dispatch
    import Foundation
    import NIOConcurrencyHelpers
    import NIOCore

    /// `PlainEventLoop`s, one thread each: a plain-HTTP run's loops, made for the run and shut
    /// down after it.
    final class PlainEventLoopGroup: EventLoopGroup, @unchecked Sendable {
        let loops: [PlainEventLoop]
        private let turn = NIOLockedValueBox(0)

        /// Starts `count` loops on threads of their own; returns once each runs.
        /// `preciseWaits`: `PlainEventLoop`'s (tests turn it off to run the fallback).
        init(loops count: Int, preciseWaits: Bool = true) throws {
            precondition(count > 0, "a group has a loop")
            var loops: [PlainEventLoop] = []
            for index in 0..<count {
                let loop = try PlainEventLoop(preciseWaits: preciseWaits)
                let started = DispatchSemaphore(value: 0)
                let thread = Thread { loop.run { started.signal() } }
                thread.name = "queuesim-loop-\(index)"
                thread.start()
                started.wait()
                loops.append(loop)
            }
            self.loops = loops
        }

        func next() -> any EventLoop {
            loops[
                turn.withLockedValue { turn in
                    defer { turn = (turn + 1) % loops.count }
                    return turn
                }]
        }

        func makeIterator() -> EventLoopIterator { EventLoopIterator(loops) }

        func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
            let remaining = NIOLockedValueBox(loops.count)
            for loop in loops {
                loop.shutdownGracefully(queue: queue) { _ in
                    if remaining.withLockedValue({ count in
                        count -= 1
                        return count == 0
                    }) {
                        callback(nil)
                    }
                }
            }
        }
    }
#endif
