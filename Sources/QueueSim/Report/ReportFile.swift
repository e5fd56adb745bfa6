import Crypto
import Foundation
import QueueClientCore
import SystemPackage

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

private func describe(_ code: Int32) -> String { ErrorWording.errnoWords(code) }

/// A report file: whole-buffer writes through swift-system's `FileDescriptor` (which retries
/// interrupted and partial writes). A descriptor rather than `FileHandle` because the row spool
/// needs exact offsets and the ordered copy needs `mmap`.
final class ReportFile {
    let path: String
    private var descriptor: FileDescriptor?
    /// Bytes written so far, and their SHA-256 when `hashing` (for `run.json`'s `files`).
    private(set) var bytesWritten = 0
    private var hasher: SHA256?

    /// Creates (or truncates) the file for reading and writing.
    init(creating path: String, hashing: Bool = false) throws {
        self.path = path
        hasher = hashing ? SHA256() : nil
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .truncate, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch let error as Errno {
            throw ReportWriteError.cannotOpen(path: path, errno: error.rawValue)
        }
    }

    deinit { close() }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard let descriptor else { throw ReportWriteError.cannotWrite(path: path, errno: EBADF) }
        hasher?.update(bufferPointer: buffer)
        bytesWritten += buffer.count
        do {
            _ = try descriptor.writeAll(buffer)
        } catch let error as Errno {
            throw ReportWriteError.cannotWrite(path: path, errno: error.rawValue)
        }
    }

    /// Maps `length` bytes read-only and hands them to `body`; an empty file maps to an empty
    /// buffer (mmap refuses zero lengths).
    func withMappedBytes<T>(length: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard length > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let descriptor else { throw ReportWriteError.cannotMap(path: path, errno: EBADF) }
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor.rawValue, 0),
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
        try? descriptor?.close()
        descriptor = nil
    }
}

/// Writes files so a reader sees either the old file or the complete new one, never half:
/// the bytes go to `<name>.tmp` beside the target, then `rename(2)` replaces the target.
enum AtomicFileWriter {
    static func temporaryPath(for path: String) -> String { path + ".tmp" }

    @discardableResult
    static func write(_ text: String, to path: String) throws -> RunManifest.WrittenFile {
        try write(to: path) { file in try file.write(Array(text.utf8)) }
    }

    /// `bytes` written as `write(to:_:)` writes, without hashing them: for the files no
    /// `files` list names (run.json itself, the pending file; run.json of 2,000 groups is 3.5 MB).
    static func writeUnlisted(_ bytes: [UInt8], to path: String) throws {
        try writeUnlisted([bytes[...]], to: path)
    }

    /// `parts`, one after the other, written as `writeUnlisted(_:to:)` writes.
    static func writeUnlisted(_ parts: [ArraySlice<UInt8>], to path: String) throws {
        _ = try write(to: path, hashing: false) { file in
            for part in parts { try part.withUnsafeBytes { try file.write($0) } }
        }
    }

    /// Lets `fill` stream into the temporary file, then renames it over `path`. On failure the
    /// temporary file is removed and the previous `path` (if any) is left untouched. Returns
    /// the file's size and SHA-256, hashed as it was written.
    @discardableResult
    static func write(to path: String, _ fill: (ReportFile) throws -> Void) throws -> RunManifest.WrittenFile {
        // A hashing file always has what it wrote.
        try write(to: path, hashing: true, fill)!
    }

    /// The one write-and-rename: `written` when `hashing`, else nil.
    private static func write(
        to path: String, hashing: Bool, _ fill: (ReportFile) throws -> Void
    ) throws -> RunManifest.WrittenFile? {
        let temporary = temporaryPath(for: path)
        do {
            let file = try ReportFile(creating: temporary, hashing: hashing)
            try fill(file)
            let written = file.written
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
