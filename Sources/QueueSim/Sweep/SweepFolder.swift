import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A sweep's output folder (`--out DIR`), changed as one unit like a run's (`ReportFolder`):
/// `DIR` is a symbolic link to one sweep's set, `DIR.runs/<set id>/`, holding its sweep.csv,
/// sweep.json, sweep.html and kept points. A sweep writes into a set of its own and points
/// `DIR` at it with one `rename(2)` once every file is written, so a reader sees the previous
/// sweep's files or the new ones, never some of each.
///
/// A set is marked with `INCOMPLETE` from the moment it is made until its files are all
/// written: a sweep that fails to write (a full disk) or is killed leaves its set marked and
/// `DIR` still pointing at the previous sweep. The next sweep that finishes removes it.
///
/// Not `ReportFolder` itself: a folder written before sets holds sweep.csv and points/, which
/// `ReportFolder` takes for another program's files, and its pruning knows runs by run.json.
/// The lock is the same file, `DIR.runs/.lock` under `flock(2)`, so a sweep and a `run` into
/// one folder refuse each other too.
package final class SweepFolder {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case inUse(pointer: String, holder: String)
        case foreignDirectory(pointer: String, example: String)
        case notReplaceable(pointer: String, reason: String)
        case io(path: String, operation: String, errno: Int32)

        package var description: String {
            switch self {
            case .inUse(let pointer, let holder):
                "\(pointer) is in use by another queuesim run or sweep (\(holder)); wait for it or choose another --out"
            case .foreignDirectory(let pointer, let example):
                "\(pointer) is a directory with files queuesim did not write (\(example)); choose another --out"
            case .notReplaceable(let pointer, let reason):
                "\(pointer) cannot be a sweep's folder: \(reason); choose another --out"
            case .io(let path, let operation, let code):
                "cannot \(operation) \(path): \(Self.words(errno: code))"
            }
        }

        /// A read-only file system in the words users search for, as `run` says it.
        private static func words(errno code: Int32) -> String {
            code == EROFS ? "read-only file system (EROFS)" : String(cString: strerror(code))
        }

        /// Exit 2 for what the user fixes by choosing another folder, 3 for the file system
        /// (as `run`'s report folder).
        package var isUsageError: Bool {
            if case .io = self { return false }
            return true
        }
    }

    /// Marks a set whose files are not all written yet.
    package static let incompleteMarker = "INCOMPLETE"
    /// What a folder written before sets may hold (it becomes an earlier set, `legacy-<time>`).
    static let legacyNames: Set<String> = [
        SweepFiles.csvFile, SweepFiles.jsonFile, SweepFiles.pageFile, "points", incompleteMarker,
    ]

    package let pointer: String
    package let runsDirectory: String
    package let setId: String
    private var lockDescriptor: Int32 = -1

    /// Where this sweep writes: its own set.
    package var setDirectory: String { runsDirectory + "/" + setId }

    /// Takes the folder before anything runs: checks what `DIR` is and that `DIR`, its parent
    /// and `DIR.runs/` can be written, takes the lock, and makes this sweep's set (marked
    /// incomplete). Every problem a publish could meet later is found here.
    package init(pointer rawPointer: String, setId: String = "sweep-" + RunId.make()) throws(Failure) {
        var pointer = rawPointer
        while pointer.count > 1, pointer.hasSuffix("/") { pointer.removeLast() }
        let name = PathText.lastComponent(pointer)
        guard !pointer.isEmpty, pointer != "/", name != ".", name != ".." else {
            throw .notReplaceable(pointer: rawPointer, reason: "it names no folder of its own")
        }
        self.pointer = pointer
        runsDirectory = pointer + ReportFolder.runsSuffix
        self.setId = setId
        try Self.checkReplaceable(pointer)
        try Self.checkWritable(Self.parent(pointer), creating: true)
        do {
            try FileManager.default.createDirectory(atPath: runsDirectory, withIntermediateDirectories: true)
        } catch {
            throw .io(path: runsDirectory, operation: "create", errno: Self.posixCode(of: error))
        }
        try Self.checkWritable(runsDirectory, creating: false)
        lockDescriptor = try Self.lock(runsDirectory + "/.lock", pointer: pointer, setId: setId)
        // Again under the lock: another sweep or run may have changed it meanwhile.
        try Self.checkReplaceable(pointer)
        guard mkdir(setDirectory, 0o755) == 0 else { throw .io(path: setDirectory, operation: "create", errno: errno) }
        let marker = setDirectory + "/" + Self.incompleteMarker
        let note = "This sweep did not finish writing its files; \(pointer) still shows the previous sweep.\n"
        guard FileManager.default.createFile(atPath: marker, contents: Data(note.utf8)) else {
            throw .io(path: marker, operation: "write", errno: errno == 0 ? EIO : errno)
        }
    }

    deinit { release() }

    /// Drops the lock (the kernel also drops it when the process ends, however it ends).
    package func release() {
        if lockDescriptor >= 0 {
            close(lockDescriptor)
            lockDescriptor = -1
        }
    }

    /// Removes this sweep's set when it holds nothing but its marker (a sweep that wrote nothing).
    package func removeSetIfEmpty() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: setDirectory)) ?? []
        guard entries.allSatisfy({ $0 == Self.incompleteMarker }) else { return }
        unlink(setDirectory + "/" + Self.incompleteMarker)
        rmdir(setDirectory)
    }

    /// Writes `files` into the set through `write` (each through a temporary file and a
    /// rename), then removes the marker and points `DIR` at the set. A failure anywhere leaves
    /// `DIR` on the previous sweep and this set marked.
    package func publish(
        _ files: [(name: String, text: String)],
        write: (String, String) throws -> Void = { try AtomicFileWriter.write($1, to: $0) }
    ) throws {
        for file in files { try write(setDirectory + "/" + file.name, file.text) }
        guard unlink(setDirectory + "/" + Self.incompleteMarker) == 0 else {
            throw Failure.io(path: setDirectory + "/" + Self.incompleteMarker, operation: "remove", errno: errno)
        }
        try moveLegacyDirectoryAside()
        let temporaryLink = PathText.appending(
            "." + PathText.lastComponent(pointer) + ".link-" + setId, to: PathText.parent(pointer))
        unlink(temporaryLink)
        guard symlink(PathText.lastComponent(runsDirectory) + "/" + setId, temporaryLink) == 0 else {
            throw Failure.io(path: temporaryLink, operation: "create the link", errno: errno)
        }
        guard rename(temporaryLink, pointer) == 0 else {
            let code = errno
            unlink(temporaryLink)
            throw Failure.io(path: pointer, operation: "point at the new sweep", errno: code)
        }
        prune()
    }

    /// Removes earlier sweeps' sets, finished or not (a `run`'s folders in the same place are
    /// left alone: they hold no sweep files).
    private func prune() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runsDirectory)) ?? []
        for entry in entries where !entry.hasPrefix(".") && entry != setId {
            let folder = runsDirectory + "/" + entry
            let isSweep = [SweepFiles.jsonFile, Self.incompleteMarker].contains {
                FileManager.default.fileExists(atPath: folder + "/" + $0)
            }
            if isSweep { try? FileManager.default.removeItem(atPath: folder) }
        }
    }

    /// A plain directory at `DIR` (a sweep written before sets, or an empty folder) cannot be
    /// replaced by a link: an empty one is removed, one with sweep files becomes an earlier set.
    private func moveLegacyDirectoryAside() throws {
        var info = stat()
        guard lstat(pointer, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        if rmdir(pointer) == 0 { return }
        let stamp = RunId.timestamp(Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)))
        let destination = runsDirectory + "/legacy-" + stamp
        guard rename(pointer, destination) == 0 else {
            throw Failure.io(path: pointer, operation: "move the earlier sweep aside from", errno: errno)
        }
    }

    // MARK: - Checks

    private static func checkReplaceable(_ pointer: String) throws(Failure) {
        var info = stat()
        guard lstat(pointer, &info) == 0 else {
            if errno == ENOENT { return }
            throw .io(path: pointer, operation: "read", errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: pointer)) ?? ""
            guard target.hasPrefix(PathText.lastComponent(pointer) + ReportFolder.runsSuffix + "/") else {
                throw .notReplaceable(pointer: pointer, reason: "it is a link to \(target), not to a sweep's set")
            }
        case S_IFDIR:
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: pointer)) ?? []
            if let foreign = entries.sorted().first(where: { !legacyNames.contains($0) && !$0.hasSuffix(".tmp") }) {
                throw .foreignDirectory(pointer: pointer, example: foreign)
            }
            var parent = stat()
            if stat(Self.parent(pointer), &parent) == 0, parent.st_dev != info.st_dev {
                throw .notReplaceable(
                    pointer: pointer,
                    reason:
                        "it is a mount point, and a sweep replaces the folder with a link to its set; give a folder inside it"
                )
            }
            // Moving the folder aside at the end rewrites its `..`: it must be writable itself.
            try checkWritable(pointer, creating: false)
        default:
            throw .notReplaceable(pointer: pointer, reason: "it is a file, not a folder")
        }
    }

    /// `path` can take new entries (EROFS says "Read-only file system"). With `creating`, a
    /// path that does not exist yet is judged by its nearest existing ancestor.
    private static func checkWritable(_ path: String, creating: Bool) throws(Failure) {
        var candidate = path
        while creating, access(candidate, F_OK) != 0, errno == ENOENT, candidate != "/", candidate != "." {
            candidate = parent(candidate)
        }
        guard access(candidate, W_OK | X_OK) == 0 else {
            throw .io(path: candidate, operation: "write into", errno: errno)
        }
    }

    /// The folder holding `path` (`.` for a bare name).
    private static func parent(_ path: String) -> String {
        let parent = PathText.parent(path)
        return parent.isEmpty ? "." : parent
    }

    private static func lock(_ path: String, pointer: String, setId: String) throws(Failure) -> Int32 {
        do {
            return try FolderLock.take(path, holder: "sweep \(setId)")
        } catch {
            switch error {
            case .held(let holder): throw Failure.inUse(pointer: pointer, holder: holder)
            case .failed(let operation, let code): throw Failure.io(path: path, operation: operation, errno: code)
            }
        }
    }

    private static func posixCode(of error: any Error) -> Int32 {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain { return Int32(underlying.code) }
        return EIO
    }
}
