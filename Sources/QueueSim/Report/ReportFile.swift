import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors while writing reports. Each names the file so the user knows what is missing.
package enum ReportWriteError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)
    case cannotWrite(path: String, errno: Int32)
    case cannotRename(from: String, to: String, errno: Int32)
    case cannotMap(path: String, errno: Int32)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let code): "cannot open \(path): \(describe(code))"
        case .cannotWrite(let path, let code): "cannot write \(path): \(describe(code))"
        case .cannotRename(let from, let to, let code):
            "cannot rename \(from) to \(to): \(describe(code))"
        case .cannotMap(let path, let code): "cannot read back \(path): \(describe(code))"
        }
    }
}

private func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

/// A plain file descriptor with whole-buffer writes. POSIX rather than `FileHandle` because the
/// row spool needs exact offsets and the ordered copy needs `mmap`.
final class ReportFile {
    let path: String
    private var descriptor: Int32
    /// Bytes written so far, and their SHA-256 when `hashing` (for `run.json`'s `files`).
    private(set) var bytesWritten = 0
    private var hasher: SHA256?

    /// Creates (or truncates) the file for reading and writing.
    init(creating path: String, hashing: Bool = false) throws {
        self.path = path
        hasher = hashing ? SHA256() : nil
        descriptor = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ReportWriteError.cannotOpen(path: path, errno: errno) }
    }

    deinit { close() }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        hasher?.update(bufferPointer: buffer)
        bytesWritten += buffer.count
        var remaining = buffer
        while !remaining.isEmpty {
            let written = systemWrite(descriptor, remaining.baseAddress, remaining.count)
            if written < 0 {
                if errno == EINTR { continue }
                throw ReportWriteError.cannotWrite(path: path, errno: errno)
            }
            remaining = UnsafeRawBufferPointer(rebasing: remaining[written...])
        }
    }

    /// Maps `length` bytes read-only and hands them to `body`; an empty file maps to an empty
    /// buffer (mmap refuses zero lengths).
    func withMappedBytes<T>(length: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard length > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0),
            address != MAP_FAILED
        else {
            throw ReportWriteError.cannotMap(path: path, errno: errno)
        }
        defer { munmap(address, length) }
        return try body(UnsafeRawBufferPointer(start: address, count: length))
    }

    /// What was written: size and SHA-256 (hex); only for a file created with `hashing`.
    var written: RunManifest.WrittenFile? {
        hasher.map { hasher in
            RunManifest.WrittenFile(
                bytes: bytesWritten, sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }

    func close() {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
            descriptor = -1
        }
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
    #else
        Darwin.write(fd, buffer, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(fd)
    #else
        Darwin.close(fd)
    #endif
}

/// Writes files so a reader sees either the old file or the complete new one, never half:
/// the bytes go to `<name>.tmp` beside the target, then `rename(2)` replaces the target.
enum AtomicFileWriter {
    static func temporaryPath(for path: String) -> String { path + ".tmp" }

    @discardableResult
    static func write(_ text: String, to path: String) throws -> RunManifest.WrittenFile {
        try write(to: path) { file in try file.write(Array(text.utf8)) }
    }

    /// Lets `fill` stream into the temporary file, then renames it over `path`. On failure the
    /// temporary file is removed and the previous `path` (if any) is left untouched. Returns
    /// the file's size and SHA-256, hashed as it was written.
    @discardableResult
    static func write(to path: String, _ fill: (ReportFile) throws -> Void) throws -> RunManifest.WrittenFile {
        let temporary = temporaryPath(for: path)
        do {
            let file = try ReportFile(creating: temporary, hashing: true)
            try fill(file)
            let written = file.written!
            file.close()
            guard rename(temporary, path) == 0 else {
                throw ReportWriteError.cannotRename(from: temporary, to: path, errno: errno)
            }
            return written
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
