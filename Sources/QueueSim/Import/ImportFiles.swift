import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files an import reads and writes. A written file appears whole or not at all (a temporary
/// file beside it, then `rename`), so an interrupted import never leaves half a scenario or half
/// a table; an existing `--out` is refused unless `--force`.
package enum ImportFiles {
    /// The most read from a file the user named (an event is a few KB; saved statistics answers
    /// for 92 days of minutes are a few MB each).
    static let readLimit = 64 << 20

    package static func read(_ path: String) throws(ImportFailure) -> [UInt8] {
        do {
            return try RegularFileReader.contents(path: path, limit: readLimit)
        } catch {
            throw ImportFailure("\(path): \(error.description)")
        }
    }

    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Refuses an existing `--out` unless `force` (exit 2), before anything is fetched.
    package static func checkOutput(_ path: String, force: Bool) throws(ImportFailure) {
        if isFolder(path) {
            throw ImportFailure("--out \(path) is a folder; give a file name such as scenario.yaml")
        }
        if !force, exists(path) {
            throw ImportFailure(
                "--out \(path) exists; give --force to replace it, or another file name")
        }
    }

    /// Writes `bytes` to `path` whole: a temporary file in the same folder, then renamed over it.
    package static func write(_ bytes: [UInt8], to path: String) throws(ImportFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw cannotWrite(path, errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(descriptor)
                unlink(temporary)
                throw cannotWrite(path, code)
            }
            written += count
        }
        let synced = fsync(descriptor) == 0 ? 0 : errno
        close(descriptor)
        guard synced == 0 || synced == EINVAL else {
            unlink(temporary)
            throw cannotWrite(path, synced)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw cannotWrite(path, code)
        }
    }

    /// Creates a folder (its parent must exist); an existing folder is fine.
    package static func makeFolder(_ path: String) throws(ImportFailure) {
        if isFolder(path) { return }
        guard mkdir(path, 0o755) == 0 || (errno == EEXIST && isFolder(path)) else { throw cannotWrite(path, errno) }
    }

    private static func cannotWrite(_ path: String, _ code: Int32) -> ImportFailure {
        ImportFailure("cannot write \(path): \(ErrorWording.errnoWords(code))", status: .aborted)
    }
}

/// `write(2)`, named apart from `ImportFiles.write`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}
