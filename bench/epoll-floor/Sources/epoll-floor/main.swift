// The floor under a transport of queuesim's own (docs/benchmarks.md, "Ninth look"): plain
// non-blocking sockets on one epoll set, in Swift, with no event-loop library. 64 connections
// to 127.0.0.1:PORT, each sending an enqueue request again as soon as the answer's
// Content-Length bytes are in (`keepalive`), or a new connection per request, closed after its
// answer (`connect`, the request says `Connection: close`). Nothing is parsed beyond the
// framing. Prints requests (connections) per second over SECONDS and the process's user and
// system CPU µs per request (getrusage), to read beside wrk's and bench/nio-floor's.
//
//   (cd bench/epoll-floor && swift build -c release)
//   taskset -c 1 bench/epoll-floor/.build/release/epoll-floor keepalive|connect SECONDS [PORT]
//
// `FLOOR=1 bench/client-budget.sh` builds it and runs it against the nginx set-ups of
// bench/live-ceiling.sh (keep-alive) and bench/live-connect.sh (`keepalive_timeout 0`).
import CEpoll
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 3, arguments[1] == "keepalive" || arguments[1] == "connect",
    let seconds = Int(arguments[2]), seconds > 0, seconds <= 600
else {
    print("usage: epoll-floor keepalive|connect SECONDS [PORT]")
    exit(2)
}
let newConnections = arguments[1] == "connect"
let port = UInt16(arguments.count >= 4 ? Int(arguments[3]) ?? 18090 : 18090)
let connections = 64

let body =
    #"{"userId":"0b6f2a4e-5c1d-4e8a-9f3b-6d7e8f901234","userAgent":"queuesim\/1 (virtual visitor)","sdkVersion":"iOS-3.5.2"}"#
let request = Array(
    ("POST /api/mobileapp/queue/acme/bench/enqueue HTTP/1.1\r\nHost: acme.queue-it.net\r\n"
        + "Accept: application/json\r\nContent-Type: application/json\r\n"
        + "User-Agent: queuesim/1 (virtual visitor)\r\nContent-Length: \(body.utf8.count)\r\n"
        + (newConnections ? "Connection: close\r\n" : "") + "\r\n\(body)").utf8)

func fail(_ what: String) -> Never {
    print("epoll-floor: \(what) failed: errno \(errno)")
    exit(1)
}

var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_port = port.bigEndian
address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian

let poll = epoll_create1(0)
if poll < 0 { fail("epoll_create1") }

/// Per descriptor: the bytes of the answer read so far, and how many the whole answer has
/// (-1 until its head is in).
var received = [Int](repeating: 0, count: 65_536)
var expected = [Int](repeating: -1, count: 65_536)
var completed = 0

/// A non-blocking socket, connecting, registered for both directions, edge-triggered: the
/// first writable event sends the request (one `epoll_ctl` per connection).
@MainActor func open() {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0, fd < received.count else { fail("socket") }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if result < 0 && errno != EINPROGRESS { fail("connect") }
    received[Int(fd)] = 0
    expected[Int(fd)] = -1
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLET.rawValue
    event.data.fd = fd
    if epoll_ctl(poll, EPOLL_CTL_ADD, fd, &event) < 0 { fail("epoll_ctl") }
}

@MainActor func send(_ fd: Int32) {
    let written = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if written != request.count { fail("write") }
}

/// Reads what is there; true when the answer is complete (or the server closed).
@MainActor func readAnswer(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
    let index = Int(fd)
    while true {
        let count = read(fd, buffer.baseAddress, buffer.count)
        if count == 0 { return true }
        if count < 0 { return errno == EAGAIN ? false : true }
        if expected[index] < 0 {
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            expected[index] = answerLength(bytes)
        }
        received[index] += count
        if expected[index] >= 0 && received[index] >= expected[index] { return true }
    }
}

/// Head length plus Content-Length, from the first read (the whole head comes in one read on
/// loopback); -1 when it is not there.
func answerLength(_ bytes: UnsafeRawBufferPointer) -> Int {
    let text = Array(bytes)
    let marker = Array("Content-Length: ".utf8)
    guard let headEnd = (0..<max(0, text.count - 3)).first(where: { text[$0..<($0 + 4)] == [13, 10, 13, 10] }),
        let start = (0..<max(0, headEnd - marker.count)).first(where: { text[$0..<($0 + marker.count)] == marker[...] })
    else { return -1 }
    var length = 0
    var position = start + marker.count
    while position < text.count, text[position] >= 48, text[position] <= 57 {
        length = length * 10 + Int(text[position] - 48)
        position += 1
    }
    return headEnd + 4 + length
}

var sent = [Bool](repeating: false, count: 65_536)
for _ in 0..<connections { open() }
let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: 256)

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
func cpu() -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    )
}

// One second of warm-up, then the measured window.
var windowStart = now() + 1
let end = windowStart + Double(seconds)
var measuring = false
var startCount = 0
var startCPU = cpu()
while true {
    let clock = now()
    if !measuring && clock >= windowStart {
        measuring = true
        startCount = completed
        startCPU = cpu()
        windowStart = clock
    }
    if clock >= end { break }
    let ready = epoll_wait(poll, events, 256, 100)
    if ready < 0 && errno != EINTR { fail("epoll_wait") }
    for index in 0..<Int(max(0, ready)) {
        let fd = events[index].data.fd
        let flags = events[index].events
        if !sent[Int(fd)] && flags & EPOLLOUT.rawValue != 0 {
            sent[Int(fd)] = true
            send(fd)
        }
        guard flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { continue }
        guard readAnswer(fd, into: buffer) else { continue }
        completed += 1
        if newConnections {
            sent[Int(fd)] = false
            close(fd)
            open()
        } else {
            received[Int(fd)] = 0
            expected[Int(fd)] = -1
            send(fd)
        }
    }
}
let elapsed = now() - windowStart
let usedCPU = cpu()
let requests = completed - startCount
/// CPU µs per request, to one decimal.
func perRequest(_ seconds: Double) -> String {
    let tenths = requests > 0 ? Int((seconds * 1e7 / Double(requests)).rounded()) : 0
    return "\(tenths / 10).\(tenths % 10)"
}
print(
    "\(newConnections ? "connections" : "requests")/s: \(Int(Double(requests) / elapsed)); "
        + "user \(perRequest(usedCPU.user - startCPU.user)) µs, "
        + "system \(perRequest(usedCPU.system - startCPU.system)) µs per request")
exit(0)
