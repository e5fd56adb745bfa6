// The plain transport exists on Linux only (epoll, eventfd): elsewhere every run uses
// SwiftNIO's (`LiveTransport`).
#if os(Linux)
    import CEpoll
    import Dispatch
    import Foundation
    import HeapModule
    import NIOConcurrencyHelpers
    import NIOCore

    import Glibc

    /// An event loop of queuesim's own for plain-HTTP runs: one thread, one `epoll` set, a heap of
    /// timers and an `eventfd` that wakes it for work submitted from other threads. It conforms to
    /// NIO's `EventLoop`, so the loop driver and the connection pool keep scheduling with
    /// `execute`, `scheduleTask` and promises, while their connections (`PlainHTTPConnection`)
    /// watch their sockets here without a channel or a pipeline: SwiftNIO's own code was 18 % of a
    /// keep-alive request's loop thread and a third of a new connection's (docs/benchmarks.md,
    /// "Ninth look"). TLS runs stay on SwiftNIO's loops.
    ///
    /// A tick: the sockets' events, then every task submitted so far and every timer due (tasks
    /// those queue run in the same tick), then a wait for the next event or the earliest timer.
    final class PlainEventLoop: EventLoop, @unchecked Sendable {
        private let epoll: Int32
        private let wakeup: Int32

        // Loop-confined.
        private var tasks: [() -> Void] = []
        private var timers = Heap<Timer>()
        private var timerOrder: UInt64 = 0
        /// Timers in the heap that were cancelled (`compactTimersIfMostlyCancelled`).
        private var cancelledTimers = 0
        private var watchers: [(any PlainSocketWatcher)?] = []
        private var generations: [UInt32] = []
        private var nextGeneration: UInt32 = 0
        private var stopping = false
        /// Where sockets' bytes are read into, lent to one read at a time (`withReceiveBuffer`).
        private var receiveBuffer = ByteBufferAllocator().buffer(capacity: PlainEventLoop.receiveBufferSize)

        // Shared with other threads.
        private let remote = NIOLockedValueBox(RemoteQueue())
        private let shutdownCallbacks = NIOLockedValueBox<[@Sendable () -> Void]>([])

        private struct RemoteQueue {
            var tasks: [@Sendable () -> Void] = []
            var woken = false
            var closed = false
        }

        /// The largest read: an answer of the room or of nginx comes in one.
        static let receiveBufferSize = 65_536
        private static let wakeupToken = UInt64.max

        /// Waits with `epoll_pwait2`'s nanosecond timeout (Linux 5.11+): a timer fires when due,
        /// not at the next millisecond. False (or a kernel without it): `epoll_wait`, rounded up.
        private var preciseWaits: Bool

        init(preciseWaits: Bool = true) throws {
            self.preciseWaits = preciseWaits
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard epoll >= 0 else { throw IOError(errnoCode: errno, reason: "epoll_create1") }
            wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
            guard wakeup >= 0 else {
                let code = errno
                Glibc.close(epoll)
                throw IOError(errnoCode: code, reason: "eventfd")
            }
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = Self.wakeupToken
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
                let code = errno
                Glibc.close(wakeup)
                Glibc.close(epoll)
                throw IOError(errnoCode: code, reason: "epoll_ctl")
            }
        }

        // MARK: - EventLoop

        /// The loop running on this thread, as SwiftNIO keeps it: a thread-local set for the
        /// loop's whole run. Comparing `pthread_t` values would not do: glibc reuses a finished
        /// thread's value for a new thread, which would then pass for the loop.
        private static let runningLoop: pthread_key_t = {
            var key = pthread_key_t()
            let status = pthread_key_create(&key, nil)
            precondition(status == 0, "pthread_key_create failed (\(status))")
            return key
        }()

        var inEventLoop: Bool {
            pthread_getspecific(Self.runningLoop) == Unmanaged.passUnretained(self).toOpaque()
        }

        func execute(_ task: @escaping @Sendable () -> Void) {
            if inEventLoop {
                tasks.append(task)
            } else {
                submitRemotely(task)
            }
        }

        func _executeIsolatedUnsafeUnchecked(_ task: @escaping () -> Void) {
            tasks.append(task)
        }

        func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
            schedule(deadline: deadline, task)
        }

        func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
            schedule(deadline: .now() + delay, task)
        }

        func _scheduleTaskIsolatedUnsafeUnchecked<T>(
            deadline: NIODeadline, _ task: @escaping () throws -> T
        ) -> Scheduled<T> {
            schedule(deadline: deadline, task)
        }

        func _scheduleTaskIsolatedUnsafeUnchecked<T>(in delay: TimeAmount, _ task: @escaping () throws -> T)
            -> Scheduled<T>
        {
            schedule(deadline: .now() + delay, task)
        }

        func preconditionInEventLoop(file: StaticString, line: UInt) {
            precondition(inEventLoop, "not on the plain event loop", file: file, line: line)
        }

        func preconditionNotInEventLoop(file: StaticString, line: UInt) {
            precondition(!inEventLoop, "on the plain event loop", file: file, line: line)
        }

        func next() -> any EventLoop { self }
        func any() -> any EventLoop { self }
        func makeIterator() -> EventLoopIterator { EventLoopIterator([self]) }

        func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
            shutdownCallbacks.withLockedValue { $0.append { queue.async { callback(nil) } } }
            execute { [self] in stopping = true }
        }

        // MARK: - Sockets

        /// Watches `fd` (edge-triggered) for `events` until `unwatch`; the watcher is kept alive
        /// meanwhile. False with `errno` set when `epoll_ctl` refused it.
        func watch(_ fd: Int32, events: UInt32, by watcher: any PlainSocketWatcher) -> Bool {
            let index = Int(fd)
            if index >= watchers.count {
                let grown = max(index + 1, watchers.count * 2)
                watchers.append(contentsOf: repeatElement(nil, count: grown - watchers.count))
                generations.append(contentsOf: repeatElement(0, count: grown - generations.count))
            }
            nextGeneration &+= 1
            var event = epoll_event()
            event.events = events | EPOLLET.rawValue
            event.data.u64 = UInt64(UInt32(bitPattern: fd)) | UInt64(nextGeneration) << 32
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
            watchers[index] = watcher
            generations[index] = nextGeneration
            return true
        }

        /// Stops watching `fd` before it is closed (closing it removes it from the set; an event
        /// of this tick for it is dropped by its generation).
        func unwatch(_ fd: Int32) {
            let index = Int(fd)
            guard index < watchers.count else { return }
            watchers[index] = nil
            generations[index] = 0
        }

        /// Lends the loop's receive buffer, cleared, to one read and its parsing.
        func withReceiveBuffer<R>(_ body: (inout ByteBuffer) -> R) -> R {
            var buffer = ByteBuffer()
            swap(&buffer, &receiveBuffer)
            buffer.clear()
            defer { swap(&buffer, &receiveBuffer) }
            return body(&buffer)
        }

        // MARK: - Running

        /// Runs the loop on the calling thread until it is shut down.
        func run(started: () -> Void) {
            pthread_setspecific(Self.runningLoop, Unmanaged.passUnretained(self).toOpaque())
            defer { pthread_setspecific(Self.runningLoop, nil) }
            started()
            let capacity = 512
            let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
            defer { events.deallocate() }
            while true {
                runTasksAndTimers()
                if stopping { break }
                var timeout: timespec?
                if !tasks.isEmpty {
                    timeout = timespec()
                } else if let first = timers.min {
                    let now = NIODeadline.now().uptimeNanoseconds
                    let wait = first.deadline > now ? first.deadline - now : 0
                    timeout = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                }
                var ready: Int32
                if preciseWaits {
                    ready = withUnsafePointer(to: timeout ?? timespec()) { pointer in
                        epoll_pwait2(epoll, events, Int32(capacity), timeout == nil ? nil : pointer, nil)
                    }
                    if ready < 0 && errno == ENOSYS {
                        preciseWaits = false
                        continue
                    }
                } else {
                    // Rounded up: a timer never fires early.
                    let milliseconds = timeout.map {
                        Int32(min(Int($0.tv_sec) * 1000 + ($0.tv_nsec + 999_999) / 1_000_000, 60_000))
                    }
                    ready = epoll_wait(epoll, events, Int32(capacity), milliseconds ?? -1)
                }
                if ready < 0 { continue }  // EINTR
                for index in 0..<Int(ready) {
                    let token = events[index].data.u64
                    if token == Self.wakeupToken {
                        var count: UInt64 = 0
                        _ = read(wakeup, &count, 8)
                        takeRemoteTasks()
                        continue
                    }
                    let fd = Int(UInt32(truncatingIfNeeded: token))
                    guard fd < watchers.count, generations[fd] == UInt32(truncatingIfNeeded: token >> 32),
                        let watcher = watchers[fd]
                    else { continue }
                    watcher.socketReady(events[index].events)
                }
            }
            shutDown()
        }

        private func runTasksAndTimers() {
            takeRemoteTasks()
            // Rounds, so work that queues work runs in this tick too, bounded so timers and
            // sockets are not starved by a task that queues itself.
            for _ in 0..<64 {
                let now = NIODeadline.now().uptimeNanoseconds
                while let first = timers.min, first.deadline <= now {
                    let timer = timers.removeMin()
                    if let run = timer.task.take() {
                        run()
                    } else {
                        cancelledTimers -= 1
                    }
                }
                guard !tasks.isEmpty else { return }
                var batch: [() -> Void] = []
                swap(&batch, &tasks)
                for task in batch { task() }
                batch.removeAll(keepingCapacity: true)
                if tasks.isEmpty { tasks = batch }
                takeRemoteTasks()
            }
        }

        private func submitRemotely(_ task: @escaping @Sendable () -> Void) {
            enum Submission { case queued, queuedAndWake, refused }
            let submission = remote.withLockedValue { queue -> Submission in
                guard !queue.closed else { return .refused }
                queue.tasks.append(task)
                defer { queue.woken = true }
                return queue.woken ? .queued : .queuedAndWake
            }
            switch submission {
            case .queued: break
            case .queuedAndWake:
                var one: UInt64 = 1
                _ = Glibc.write(wakeup, &one, 8)
            case .refused: Self.workAfterShutdown()
            }
        }

        /// Work given to a loop that has shut down can never run. As SwiftNIO does, that is a
        /// programming error: a crash in a debug build (and so in the tests), one line on stderr
        /// in a release build, where a run's reports matter more than the dropped work.
        private static func workAfterShutdown() {
            assertionFailure("work was submitted to a PlainEventLoop that has shut down")
            let first = workDroppedAfterShutdown.withLockedValue { reported in
                defer { reported = true }
                return !reported
            }
            guard first else { return }
            FileHandle.standardError.write(
                Data("queuesim: internal error: work submitted to an event loop that has shut down was dropped\n".utf8))
        }

        /// Said once a process: a bug that drops work once likely drops it on every connection.
        private static let workDroppedAfterShutdown = NIOLockedValueBox(false)

        private func takeRemoteTasks() {
            let taken = remote.withLockedValue { queue -> [@Sendable () -> Void] in
                queue.woken = false
                defer { queue.tasks.removeAll() }
                return queue.tasks
            }
            for task in taken { tasks.append(task) }
        }

        private func schedule<T>(deadline: NIODeadline, _ task: @escaping () throws -> T) -> Scheduled<T> {
            let promise = makePromise(of: T.self)
            let box = TimerTask {
                do { promise.assumeIsolatedUnsafeUnchecked().succeed(try task()) } catch { promise.fail(error) }
            }
            box.fail = { promise.fail($0) }
            let add = UnsafeTransfer { [self] in
                timerOrder &+= 1
                timers.insert(Timer(deadline: deadline.uptimeNanoseconds, order: timerOrder, task: box))
            }
            if inEventLoop { add.value() } else { submitRemotely { add.value() } }
            let cancel = UnsafeTransfer { [self] in
                guard box.take() != nil else { return }
                cancelledTimers += 1
                compactTimersIfMostlyCancelled()
            }
            return Scheduled(promise: promise) { [self] in
                if inEventLoop { cancel.value() } else { submitRemotely { cancel.value() } }
            }
        }

        /// Timers in the heap, cancelled ones included (tests). On the loop only.
        var scheduledTimerCount: Int { timers.count }

        /// Drops cancelled timers once they are most of the heap: a connect's bound is cancelled
        /// as soon as the connect completes, and a heap that kept each until its deadline held
        /// ~200,000 of them (30 MiB) in `bench/live-connect.sh`'s run.
        private func compactTimersIfMostlyCancelled() {
            guard cancelledTimers >= 1024, cancelledTimers * 2 > timers.count else { return }
            timers = Heap(timers.unordered.filter { $0.task.run != nil })
            cancelledTimers = 0
        }

        /// After the last tick: nothing more is taken from other threads; each watched socket's
        /// owner hears that the loop shut down (and closes it: a connection fails its exchange,
        /// so its pool and visitor learn why); the work that causes runs; timers left fail as
        /// SwiftNIO's do when their loop shuts down; a socket still watched after that is closed;
        /// and whoever waits for the shutdown hears of it.
        private func shutDown() {
            remote.withLockedValue { $0.closed = true }
            takeRemoteTasks()
            runQueuedTasks()
            for watcher in watchers.compactMap({ $0 }) { watcher.loopShutDown() }
            // What the owners do about it may queue work and set timers, which may queue more.
            for _ in 0..<64 {
                runQueuedTasks()
                while let timer = timers.popMin() {
                    let fail = timer.task.fail
                    if timer.task.take() != nil { fail?(EventLoopError.shutdown) }
                }
                if tasks.isEmpty { break }
            }
            for (fd, watcher) in watchers.enumerated() where watcher != nil {
                watchers[fd] = nil
                Glibc.close(Int32(fd))
            }
            Glibc.close(wakeup)
            Glibc.close(epoll)
            for callback in shutdownCallbacks.withLockedValue({ $0 }) { callback() }
        }

        /// Runs the loop's own queue until it is empty, also what those tasks queue; bounded, as a
        /// tick is, so a task that queues itself cannot hold the shutdown forever.
        private func runQueuedTasks() {
            for _ in 0..<64 where !tasks.isEmpty {
                var batch: [() -> Void] = []
                swap(&batch, &tasks)
                for task in batch { task() }
            }
            tasks.removeAll()
        }

        private struct Timer: Comparable {
            var deadline: UInt64
            var order: UInt64
            var task: TimerTask

            static func < (left: Timer, right: Timer) -> Bool {
                (left.deadline, left.order) < (right.deadline, right.order)
            }
            static func == (left: Timer, right: Timer) -> Bool {
                left.deadline == right.deadline && left.order == right.order
            }
        }

        /// A timer's work; `run` is nil once it has run or is cancelled.
        private final class TimerTask {
            private(set) var run: (() -> Void)?
            var fail: ((any Error) -> Void)?
            init(_ run: @escaping () -> Void) { self.run = run }

            /// The work, once: what holds the timer's promise is let go.
            func take() -> (() -> Void)? {
                defer {
                    run = nil
                    if fail != nil { fail = nil }
                }
                return run
            }
        }
    }

    /// A value handed to the loop's thread, where it is only used.
    private struct UnsafeTransfer<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// What the loop tells about a watched socket: its `epoll` event flags, and that the loop is
    /// shutting down (the owner closes the socket and tells whoever waits on it why).
    protocol PlainSocketWatcher: AnyObject {
        func socketReady(_ events: UInt32)
        func loopShutDown()
    }
#endif
