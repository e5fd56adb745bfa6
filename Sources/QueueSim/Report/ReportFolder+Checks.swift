import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What is checked about a folder a command will write (`--out DIR`) before the command does
/// any work: that it can be written, and that it is none of the folders the same command reads.
///
/// Publishing a report into `DIR` replaces `DIR` (a link, or a plain folder moved aside) and
/// removes the runs in `DIR.runs/` beyond `--keep`: a command that wrote into one of its own
/// inputs would delete the very folder it was reading, so that is refused up front.
extension ReportFolder {
    /// Refuses `pointer` (exit 2) when it is one of `inputs`, resolves to one through symbolic
    /// links, names the folder that holds one (`DIR` for an input `DIR.runs/<id>`), lies inside
    /// one, or holds one. Inputs that do not exist are left to the command's own checks.
    package static func checkNotAnInput(_ pointer: String, inputs: [String]) throws {
        let out = resolved(normalized(pointer))
        let store = resolved(normalized(pointer) + runsSuffix)
        for input in inputs {
            guard let folder = realPath(normalized(input)) else { continue }
            let how: String? =
                if folder == out {
                    "the same folder"
                } else if folder == store || isInside(folder, store) {
                    "a run of \(pointer)"
                } else if isInside(out, folder) {
                    "\(pointer) would be inside it"
                } else if isInside(folder, out) {
                    "it is inside \(pointer)"
                } else {
                    nil
                }
            if let how { throw Failure.isAnInput(pointer: pointer, input: input, how: how) }
        }
    }

    /// Checks that a report can be written at `pointer` (exit 3 when not): the folder that will
    /// hold its link (or the nearest one that exists, since missing parents are created), the
    /// plain folder at `pointer` if there is one (it is moved aside when the report is
    /// published), and `DIR.runs/` if it exists. A read-only file system is named as such.
    /// `sweep` and every command with `--out` can call it before its work starts.
    package static func checkWritable(_ pointer: String) throws {
        let pointer = normalized(pointer)
        try requireWritable(nearestExisting(PathText.parent(pointer).isEmpty ? "." : PathText.parent(pointer)))
        var info = stat()
        if lstat(pointer, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { try requireWritable(pointer) }
        if stat(pointer + runsSuffix, &info) == 0 { try requireWritable(pointer + runsSuffix) }
    }

    /// Creates `path` and its missing parents with mkdir(2), so a failure keeps its errno (a
    /// read-only file system stays EROFS; FileManager reports some failures as EIO).
    static func makeDirectories(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
        let parent = PathText.parent(path)
        if !parent.isEmpty, parent != path { try makeDirectories(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw Failure.io(path: path, operation: "create", errno: errno)
        }
    }

    private static func requireWritable(_ path: String) throws {
        guard access(path, W_OK | X_OK) == 0 else { throw Failure.notWritable(path: path, errno: errno) }
    }

    /// `path` if it exists, else its nearest existing parent (`.` for a relative path's top).
    private static func nearestExisting(_ path: String) -> String {
        var path = path
        var info = stat()
        while lstat(path, &info) != 0 {
            let parent = PathText.parent(path)
            path = parent.isEmpty ? "." : parent
        }
        return path
    }

    /// The absolute path `path` names, links resolved, also when its last parts do not exist
    /// yet (the existing part resolved, the rest appended).
    private static func resolved(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let parent = PathText.parent(path)
        let base = resolved(parent.isEmpty ? "." : parent)
        return PathText.appending(PathText.lastComponent(path), to: base)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` lies strictly inside `folder` (both absolute, resolved).
    private static func isInside(_ path: String, _ folder: String) -> Bool {
        path.hasPrefix(folder == "/" ? "/" : folder + "/") && path != folder
    }
}
