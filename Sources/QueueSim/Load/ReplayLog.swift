import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `arrivals: { replay: access.log, timestamps: nginx|iso|epoch }` once validated: one arrival
/// per line, in file order, the first line at second 0 and every gap kept (divided by `speed`).
///
/// The plan never holds the lines: it reads them again as it goes (`ReplayLogCursor`), from the
/// descriptor validation opened, so the run replays the file that was checked even if the path
/// is replaced in between. Ten million lines cost a read buffer, not ten million instants.
package struct ReplayLog: Sendable, Equatable {
    package var format: ReplayTimestamps
    /// Arrivals: the lines with a time (blank lines and an iso/epoch header row are skipped).
    package var lines: Int
    /// The first and last line's time, in nanoseconds since 1970.
    package var first: Int64
    package var last: Int64
    package var speed: Double
    let file: ReplayLogFile

    /// Where the `index`-th line's arrival falls on the run's clock.
    func instant(ofTime nanoseconds: Int64) -> RunInstant {
        let offset = Double(nanoseconds - first) / speed
        return RunInstant(sinceOrigin: .nanoseconds(Int64(offset.rounded())))
    }

    /// From the first arrival to the last, on the run's clock.
    package var span: Duration { .nanoseconds(Int64((Double(last - first) / speed).rounded())) }

    func cursor() -> ReplayLogCursor { ReplayLogCursor(file: file, format: format) }

    package static func == (left: ReplayLog, right: ReplayLog) -> Bool {
        left.file.path == right.file.path && left.format == right.format && left.lines == right.lines
            && left.first == right.first && left.last == right.last && left.speed == right.speed
    }
}

/// An open, regular log file, read with `pread` only (so any number of cursors share it).
final class ReplayLogFile: Sendable {
    let descriptor: Int32
    /// Resolved, and as the scenario writes it (for messages).
    let path: String
    let name: String

    /// Opens `path` if it is a regular file (a FIFO would block for ever).
    init(path: String, name: String) throws(ReplayFileError) {
        let resolved = ReplayFileError.resolvedNote(path: path, file: name)
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let reason = code == ENOENT || code == ENOTDIR ? "no such file" : RegularFileReader.words(errno: code)
            throw ReplayFileError(file: name, "cannot read it\(resolved): \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what =
                info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file (a pipe or device may never end)"
            throw ReplayFileError(file: name, "cannot read it\(resolved): this is \(what)")
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReplayFileError(file: name, "cannot read it\(resolved): \(RegularFileReader.words(errno: errno))")
        }
        self.descriptor = descriptor
        self.path = path
        self.name = name
    }

    deinit { close(descriptor) }
}

/// Reads a log's times line by line, checking each against the one before.
struct ReplayLogCursor: Sendable {
    static let chunk = 1 << 20
    /// A line longer than this is refused (no access log line is a megabyte).
    static let longestLine = 1 << 20

    let file: ReplayLogFile
    let format: ReplayTimestamps
    private var buffer: [UInt8] = []
    private var position = 0
    private var fileOffset: Int64 = 0
    private var atEnd = false
    private(set) var line = 0
    private var seenFirst = false
    private(set) var previous: (line: Int, time: Int64)?

    init(file: ReplayLogFile, format: ReplayTimestamps) {
        self.file = file
        self.format = format
    }

    /// The next line's time in nanoseconds since 1970, nil at the end of the file.
    mutating func next() throws(ReplayFileError) -> Int64? {
        while let range = try nextLine() {
            line += 1
            if range.isEmpty || buffer[range].allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            let isFirst = !seenFirst
            seenFirst = true
            guard let time = buffer.withUnsafeBufferPointer({ Self.time(in: $0[range], format: format) }) else {
                // An iso or epoch column may start with its header.
                if isFirst, format != .nginx, let byte = buffer[range].first(where: { $0 != 32 }),
                    Self.startsHeader(byte)
                {
                    continue
                }
                throw ReplayFileError(file: file.name, line: line, "no \(Self.expected(format)) on this line")
            }
            if let previous, time < previous.time {
                throw ReplayFileError(
                    file: file.name, line: line,
                    "\(ReplayTimeText.isoText(time)) is before line \(previous.line)'s \(ReplayTimeText.isoText(previous.time)); a replay keeps the file's order, so times must not go back"
                )
            }
            previous = (line, time)
            return time
        }
        return nil
    }

    /// The byte range of the next line in `buffer` (without its `\n`), reading on as needed.
    private mutating func nextLine() throws(ReplayFileError) -> Range<Int>? {
        while true {
            if let newline = Self.newline(in: buffer, from: position) {
                defer { position = newline + 1 }
                return position..<newline
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                defer { position = buffer.count }
                return position..<buffer.count
            }
            if buffer.count - position > Self.longestLine {
                throw ReplayFileError(file: file.name, line: line + 1, "the line is longer than 1 MiB")
            }
            try refill()
        }
    }

    /// The index of the next `\n` at or after `start` (memchr: a log is hundreds of megabytes).
    private static func newline(in buffer: [UInt8], from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { bytes in
            guard let found = memchr(bytes.baseAddress! + start, 10, bytes.count - start) else { return nil }
            return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private mutating func refill() throws(ReplayFileError) {
        buffer.removeSubrange(0..<position)
        position = 0
        let kept = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunk))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { bytes in
                pread(file.descriptor, bytes.baseAddress! + kept, Self.chunk, off_t(fileOffset))
            }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            throw ReplayFileError(
                file: file.name, line: line + 1, "cannot read on: \(RegularFileReader.words(errno: errno))")
        }
        buffer.removeLast(Self.chunk - count)
        fileOffset += Int64(count)
        if count == 0 { atEnd = true }
    }

    private static func startsHeader(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "\"")
    }

    static func expected(_ format: ReplayTimestamps) -> String {
        switch format {
        case .nginx: "nginx time such as [10/Oct/2000:13:55:36 -0700]"
        case .iso: "ISO-8601 time such as 2026-05-01T09:00:00.250Z"
        case .epoch: "epoch seconds such as 1714554000.25 as the first field"
        }
    }

    /// The line's time, nil when it has none in `format`.
    static func time(in line: Slice<UnsafeBufferPointer<UInt8>>, format: ReplayTimestamps) -> Int64? {
        switch format {
        case .nginx:
            guard let open = line.firstIndex(of: UInt8(ascii: "[")),
                let close = line[open...].firstIndex(of: UInt8(ascii: "]"))
            else { return nil }
            return ReplayTimeText.nginx(line[(open + 1)..<close])
        case .epoch:
            let start = line.firstIndex { $0 != 32 && $0 != 9 } ?? line.endIndex
            let end = line[start...].firstIndex { isDelimiter($0) } ?? line.endIndex
            return ReplayTimeText.epoch(line[start..<end])
        case .iso:
            return isoTime(in: line)
        }
    }

    /// The first ISO-8601 time that starts the line or follows a delimiter (an ALB log's second
    /// field); a space right after the date may separate the time, as ISO allows.
    private static func isoTime(in line: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var start = line.startIndex
        while start + 10 <= line.endIndex {
            let followsDelimiter = start == line.startIndex || isDelimiter(line[start - 1]) || line[start - 1] == 91
            if followsDelimiter, isDigit(line[start]), isDigit(line[start + 3]), line[start + 4] == UInt8(ascii: "-") {
                var end = start
                while end < line.endIndex, !isDelimiter(line[end]) || (line[end] == 32 && end == start + 10) {
                    end += 1
                }
                if end > start, line[end - 1] == UInt8(ascii: "]") { end -= 1 }
                return ReplayTimeText.iso(line[start..<end])
            }
            start += 1
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 44 || byte == 34 || byte == 39 || byte == 13
    }
}
