import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The lock of a report folder, `DIR.runs/.lock`, held with `flock(2)` for a command's whole
/// time (the kernel drops it when the process dies, `kill -9` included). One file for `run`,
/// `merge` and `sweep`, so any two of them writing into one folder refuse each other; the file
/// names its holder (`pid 4242, run 20261129T…`) for the refusal's words.
enum FolderLock {
    enum Refusal: Error {
        /// Another process holds it: its own words.
        case held(by: String)
        /// `open` or `flock` failed.
        case failed(operation: String, errno: Int32)
    }

    /// Takes the lock at `path` for `holder`; returns the open descriptor, which holds it.
    static func take(_ path: String, holder: String) throws(Refusal) -> Int32 {
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .failed(operation: "open", errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var words = [UInt8](repeating: 0, count: 200)
            let count = pread(descriptor, &words, words.count, 0)
            close(descriptor)
            guard code == EWOULDBLOCK else { throw .failed(operation: "lock", errno: code) }
            let text = String(decoding: words.prefix(max(0, count)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw .held(by: text.isEmpty ? "holder unknown" : text)
        }
        let line = Array("pid \(getpid()), \(holder)\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, line, line.count, 0)
        return descriptor
    }
}
