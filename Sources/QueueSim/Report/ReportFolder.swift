import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A report folder (`reports/<name>`, or `--out DIR`) that changes as one unit.
///
/// `DIR` is a symbolic link to one run's folder, `DIR.runs/<run id>/`, which holds that run's
/// `visitors.csv`, `summary.csv`, `timeline.csv` and `run.json`. A run writes into a folder of
/// its own and, once every file is written, points `DIR` at it with one `rename(2)` of a new
/// link over the old one: a reader of `DIR/visitors.csv` sees the previous run's set or the
/// new one, never files of two runs, and a run that fails or is killed never becomes current.
///
/// A symbolic link rather than `renameat2(RENAME_EXCHANGE)` of two directories: renaming a link
/// is atomic on every file system, the exchange is not supported by all (overlay and network
/// file systems among them), and the link also says which run is current.
///
/// One run at a time per folder: `DIR.runs/.lock` is held with `flock(2)` for the whole run (the
/// kernel drops it when the process dies, `kill -9` included) and names the holder's pid and
/// run id, so a second run is refused with both.
package final class ReportFolder {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case inUse(pointer: String, holder: String)
        case foreignDirectory(pointer: String, example: String)
        case notReplaceable(pointer: String, reason: String)
        case io(path: String, operation: String, errno: Int32)
        /// Found before any work: the folder cannot be written (read-only, no permission).
        case notWritable(path: String, errno: Int32)
        /// `--out` is one of the folders the same command reads (exit 2: publishing would replace
        /// or remove it).
        case isAnInput(pointer: String, input: String, how: String)

        package var description: String {
            switch self {
            case .inUse(let pointer, let holder):
                "\(pointer) is in use by another queuesim run (\(holder)); wait for it or choose another --out"
            case .foreignDirectory(let pointer, let example):
                "\(pointer) is a directory with files queuesim did not write (\(example)); choose another --out"
            case .notReplaceable(let pointer, let reason):
                "\(pointer) cannot be a report folder: \(reason); choose another --out"
            case .io(let path, let operation, let code):
                "cannot \(operation) \(path): \(Self.words(errno: code))"
            case .notWritable(let path, let code):
                "cannot write reports into \(path): \(Self.words(errno: code)); choose another --out"
            case .isAnInput(let pointer, let input, let how):
                "--out \(pointer) is one of the folders this command reads (\(input): \(how)); writing the report there would replace or remove it, so choose another --out"
            }
        }

        /// A read-only file system in the words users search for, whatever strerror's case.
        private static func words(errno code: Int32) -> String {
            code == EROFS ? "read-only file system (EROFS)" : String(cString: strerror(code))
        }

        /// Exit 2 for what the user can fix by choosing another folder, 3 for the file system.
        package var isUsageError: Bool {
            switch self {
            case .io, .notWritable: false
            case .inUse, .foreignDirectory, .notReplaceable, .isAnInput: true
            }
        }
    }

    /// The files a run writes into its folder; a plain directory holding only these (the layout
    /// before run folders) is moved aside into `DIR.runs/` when a run replaces it.
    static let reportFileNames: Set<String> = [
        Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile, Recorder.manifestFile,
        Recorder.spoolFile, Recorder.pendingFile,
    ]

    /// The path users read: a link to the current run's folder.
    package let pointer: String
    package let runsDirectory: String
    package let runId: String
    /// Earlier complete runs kept beside the current one (`--keep N`).
    package let keep: Int
    private var lockDescriptor: Int32
    /// Runs this process recovered: not pruned by its own publish, so the folder the user was
    /// just told about is still there (later runs prune them like any other).
    private var recoveredNow: Set<String> = []

    package var runDirectory: String { Self.runDirectory(pointer: pointer, runId: runId) }

    /// `DIR` + this is the folder that holds `DIR`'s runs.
    package static let runsSuffix = ".runs"

    /// Where run `runId` writes its reports for the folder `pointer` (known before the folder
    /// is taken, so the run can be prepared first).
    package static func runDirectory(pointer: String, runId: String) -> String {
        normalized(pointer) + runsSuffix + "/" + runId
    }

    static func normalized(_ pointer: String) -> String {
        var pointer = pointer
        while pointer.count > 1, pointer.hasSuffix("/") { pointer.removeLast() }
        return pointer
    }

    /// Takes the folder for a run: checks what `pointer` is now, creates `DIR.runs/` and takes
    /// its lock. Nothing else is written until `createRunDirectory`.
    package init(pointer rawPointer: String, runId: String = RunId.make(), keep: Int = 0) throws {
        let pointer = Self.normalized(rawPointer)
        let name = PathText.lastComponent(pointer)
        guard !pointer.isEmpty, pointer != "/", name != ".", name != ".." else {
            throw Failure.notReplaceable(pointer: rawPointer, reason: "it names no folder of its own")
        }
        self.pointer = pointer
        self.runsDirectory = pointer + Self.runsSuffix
        self.runId = runId
        self.keep = max(0, keep)
        try Self.checkReplaceable(pointer)
        try Self.checkWritable(pointer)
        try Self.makeDirectories(runsDirectory)
        lockDescriptor = try Self.lock(runsDirectory + "/.lock", pointer: pointer, runId: runId)
        // Checked again under the lock: another run may have changed it meanwhile.
        try Self.checkReplaceable(pointer)
    }

    deinit { release() }

    /// Drops the lock (also done when the process ends, however it ends).
    package func release() {
        if lockDescriptor >= 0 {
            close(lockDescriptor)
            lockDescriptor = -1
        }
    }

    /// Keeps the lock until the process ends, however this object is released: a command holds
    /// its folder for its whole time (its last lines, `--junit`, the metrics linger), not just
    /// until its last use of the folder. A second descriptor (close-on-exec, so no child holds
    /// it) shares the lock, which the kernel drops when the process exits.
    package func holdLockUntilExit() {
        guard lockDescriptor >= 0 else { return }
        _ = fcntl(lockDescriptor, F_DUPFD_CLOEXEC, 0)
    }

    /// Removes this run's folder if nothing was written into it (a run that could not start).
    package func removeRunDirectoryIfEmpty() {
        rmdir(runDirectory)
    }

    package func createRunDirectory() throws {
        guard mkdir(runDirectory, 0o755) == 0 else {
            throw Failure.io(path: runDirectory, operation: "create", errno: errno)
        }
    }

    /// Run folders of earlier runs that never finished: their pending marker is still there
    /// (`Recorder.finish` removes it after `run.json`). Their writer is gone (this process holds
    /// the lock), so they are safe to recover.
    package func crashedRuns() -> [String] {
        runFolders().filter { id in
            let folder = runsDirectory + "/" + id
            return FileManager.default.fileExists(atPath: folder + "/" + Recorder.pendingFile)
                && id != runId
        }
    }

    /// Finishes the reports of a run that was killed in this folder (see `ReportRecovery`).
    package func recoverCrashedRun(_ id: String) throws -> ReportRecovery.Recovered {
        let recovered = try ReportRecovery.recover(runsDirectory + "/" + id)
        recoveredNow.insert(id)
        return recovered
    }

    /// The run id `pointer` names now, if it is one of this folder's links.
    package var currentRunId: String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: pointer) else { return nil }
        let prefix = Self.linkPrefix(for: pointer)
        guard target.hasPrefix(prefix) else { return nil }
        return String(target.dropFirst(prefix.count))
    }

    /// Points `pointer` at run `id` (this run's unless given) in one rename, then removes
    /// complete runs beyond the newest `keep` earlier ones.
    package func publish(_ id: String? = nil) throws {
        let id = id ?? runId
        try moveLegacyDirectoryAside()
        let parent = PathText.parent(pointer)
        let temporaryLink =
            PathText.appending("." + PathText.lastComponent(pointer) + ".link-" + id, to: parent)
        unlink(temporaryLink)
        guard symlink(Self.linkPrefix(for: pointer) + id, temporaryLink) == 0 else {
            throw Failure.io(path: temporaryLink, operation: "create the link", errno: errno)
        }
        guard rename(temporaryLink, pointer) == 0 else {
            let code = errno
            unlink(temporaryLink)
            throw Failure.io(path: pointer, operation: "point at the new run", errno: code)
        }
        prune(current: id)
    }

    // MARK: - Helpers

    /// `reports/launch` links to `launch.runs/<id>`: relative, so moving `reports/` keeps it.
    private static func linkPrefix(for pointer: String) -> String {
        PathText.lastComponent(pointer) + runsSuffix + "/"
    }

    private func runFolders() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runsDirectory)) ?? []
        return entries.filter { !$0.hasPrefix(".") }.sorted()
    }

    private func prune(current: String) {
        let complete = runFolders().filter { id in
            id != current && id != runId && !recoveredNow.contains(id)
                && FileManager.default.fileExists(atPath: runsDirectory + "/" + id + "/" + Recorder.manifestFile)
                && !FileManager.default.fileExists(atPath: runsDirectory + "/" + id + "/" + Recorder.pendingFile)
        }
        // Run ids start with their UTC start time, so name order is age order.
        for id in complete.dropLast(keep) {
            try? FileManager.default.removeItem(atPath: runsDirectory + "/" + id)
        }
    }

    /// A plain directory at `pointer` (reports written before run folders, or an empty folder
    /// made for the run) cannot be replaced by a link: an empty one is removed, one holding
    /// only report files becomes an earlier run, `legacy-<time>`.
    private func moveLegacyDirectoryAside() throws {
        var info = stat()
        guard lstat(pointer, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        if rmdir(pointer) == 0 { return }
        let stamp = RunId.timestamp(Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)))
        let destination = runsDirectory + "/legacy-" + stamp
        guard rename(pointer, destination) == 0 else {
            throw Failure.io(path: pointer, operation: "move the earlier report aside from", errno: errno)
        }
    }

    private static func checkReplaceable(_ pointer: String) throws {
        var info = stat()
        guard lstat(pointer, &info) == 0 else {
            if errno == ENOENT { return }
            throw Failure.io(path: pointer, operation: "read", errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: pointer)) ?? ""
            guard target.hasPrefix(linkPrefix(for: pointer)) else {
                throw Failure.notReplaceable(pointer: pointer, reason: "it is a link to \(target), not to a run folder")
            }
        case S_IFDIR:
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: pointer)) ?? []
            if let foreign = entries.sorted().first(where: { !reportFileNames.contains($0) && !$0.hasSuffix(".tmp") }) {
                throw Failure.foreignDirectory(pointer: pointer, example: foreign)
            }
        default:
            throw Failure.notReplaceable(pointer: pointer, reason: "it is a file, not a folder")
        }
    }

    private static func lock(_ path: String, pointer: String, runId: String) throws -> Int32 {
        do {
            return try FolderLock.take(path, holder: "run \(runId)")
        } catch {
            switch error {
            case .held(let holder): throw Failure.inUse(pointer: pointer, holder: holder)
            case .failed(let operation, let code): throw Failure.io(path: path, operation: operation, errno: code)
            }
        }
    }
}
