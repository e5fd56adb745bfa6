import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file the user named (a scenario, a CSV feeder) only if it is a regular file.
///
/// A named pipe blocks `open` until a writer comes (a FIFO given as the scenario hung
/// `queuesim validate` for ever), and a device can block or never end. The kind is checked
/// with `stat` before opening, and again with `fstat` on the descriptor, opened non-blocking,
/// in case the path was swapped between the two.
enum RegularFileReader {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case missing
        case folder
        /// A FIFO, device or socket: `kind` names it in words.
        case notRegular(kind: String)
        case tooLarge(limit: Int)
        /// `errno` of the failed call, already in words.
        case unopenable(reason: String)
        case unreadable(reason: String)

        /// For messages that name the path first (`FILE: …`).
        var description: String {
            switch self {
            case .missing: "no such file"
            case .folder: "this is a folder, not a file"
            case .notRegular(let kind):
                "this is \(kind), not a regular file; queuesim reads only regular files (a pipe or device may never end)"
            case .tooLarge(let limit): "the file is larger than \(Self.size(limit))"
            case .unopenable(let reason): "the file cannot be opened (\(reason))"
            case .unreadable(let reason): "the file cannot be read (\(reason))"
            }
        }

        private static func size(_ bytes: Int) -> String {
            bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MB" : "\(bytes) bytes"
        }
    }

    /// The whole file, at most `limit` bytes.
    static func contents(path: String, limit: Int) throws(Failure) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .missing }
            throw .unopenable(reason: Self.words(errno: code))
        }
        try check(info.st_mode)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unopenable(reason: Self.words(errno: errno)) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(reason: Self.words(errno: errno)) }
        try check(info.st_mode)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(reason: Self.words(errno: errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw .tooLarge(limit: limit) }
        }
    }

    /// The size of a regular file in bytes; nil when it is missing or not a regular file (the
    /// read that follows says which).
    static func size(path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    private static func check(_ mode: mode_t) throws(Failure) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .folder
        case S_IFIFO: throw .notRegular(kind: "a named pipe (FIFO)")
        case S_IFCHR: throw .notRegular(kind: "a character device")
        case S_IFBLK: throw .notRegular(kind: "a block device")
        case S_IFSOCK: throw .notRegular(kind: "a socket")
        default: throw .notRegular(kind: "a special file")
        }
    }

    /// `strerror` with the number, as a person reads it: "Permission denied (errno 13)"
    /// (`ErrorWording.errnoWords`, which names a read-only file system as EROFS).
    static func words(errno code: Int32) -> String { ErrorWording.errnoWords(code) }
}
