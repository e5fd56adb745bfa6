import Foundation
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a report folder can stand for a run in `queuesim compare`: its `run.json` records a
/// whole run (not a partial merge, a recovered, interrupted or guardrail-stopped one), and its
/// `visitors.csv` is the file that run wrote — queuesim's header, complete rows of its width,
/// every visitor once, as many rows and outcomes as `run.json` counts, and the size and SHA-256
/// `run.json` records. A folder that does not add up measures something else than it says, and
/// a comparison of it would judge the wrong run.
package enum RunFolderCheck {
    /// Why a folder was refused, in words that name the folder, the file and the line.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// `run.json` beyond this is not one queuesim wrote (a run's is tens of kilobytes).
    static let maxManifestBytes = 16 << 20

    /// The checks on bytes alone, for a fuzz target: never crashes or hangs, whatever the bytes.
    package static func check(runJSON: Data, visitorsCSV: Data) throws(Problem) {
        _ = try ComparedRun(folder: "run", runJSON: runJSON, visitorsCSV: visitorsCSV)
    }

    /// `run.json` read as the run wrote it (`RunManifest`), or why it is not one.
    static func manifest(_ bytes: Data, file: String) throws(Problem) -> RunManifest {
        guard bytes.count <= maxManifestBytes else {
            throw Problem(description: "\(file) is larger than 16 MB: not a run.json queuesim wrote")
        }
        do {
            return try RunManifest.read(bytes)
        } catch {
            throw Problem(description: "cannot read \(file): it is not a run.json queuesim wrote (\(reason(error)))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "it has no `\(key.stringValue)`"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "`\(context.codingPath.map(\.stringValue).joined(separator: "."))` is not what queuesim writes there"
        case .dataCorrupted, nil: "not JSON"
        @unknown default: "not JSON"
        }
    }

    /// Why the run in `folder` is not a whole run, or nil when it is: what compare measures of a
    /// cut-short run is the cut, not the system, so it is refused rather than judged.
    static func incompleteness(_ manifest: RunManifest) -> String? {
        let exit = manifest.exitCode
        if exit == RunExitStatus.partial.rawValue || manifest.shards?.missing.isEmpty == false {
            return "it is a partial merge (exit \(exit))" + (manifest.incomplete.map { ": \($0)" } ?? "")
        }
        if let incomplete = manifest.incomplete { return "it is incomplete (exit \(exit)): \(incomplete)" }
        if exit == RunExitStatus.guardrailStopped.rawValue || manifest.guardrailStopped != nil {
            return "a guardrail stopped it (exit \(exit))"
        }
        if manifest.interrupted || exit == RunExitStatus.interrupted.rawValue
            || exit == RunExitStatus.terminated.rawValue
        {
            return "it was interrupted (exit \(exit))"
        }
        if exit != RunExitStatus.success.rawValue, exit != RunExitStatus.thresholdFailed.rawValue {
            return "run.json says exit \(exit), not a finished run's 0 or 1"
        }
        return nil
    }

    /// After the last row: the rows add up to what `run.json` records.
    static func agreement(_ rows: VisitorRowsCheck, _ manifest: RunManifest, file: String) throws(Problem) {
        guard rows.rowCount == manifest.visitors else {
            throw Problem(
                description: "\(file) has \(rows.rowCount) rows, run.json says \(manifest.visitors) visitors")
        }
        for outcome in VisitorOutcome.allCases {
            let counted = rows.outcomeCounts[outcome] ?? 0
            let recorded = manifest.outcomes[outcome.rawValue] ?? 0
            guard counted == recorded else {
                throw Problem(
                    description:
                        "\(file) has \(counted) \(outcome.rawValue) visitors, run.json says \(recorded)")
            }
        }
        if let recorded = manifest.files[Recorder.visitorsFile] {
            let sha256 = rows.sha256
            guard recorded.bytes == rows.byteCount, recorded.sha256 == sha256 else {
                throw Problem(
                    description:
                        "\(file) is not the file run.json records: it has \(rows.byteCount) bytes (SHA-256 \(sha256.prefix(12))…), run.json records \(recorded.bytes) bytes (SHA-256 \(recorded.sha256.prefix(12))…)"
                )
            }
        }
    }
}

extension RunFolderCheck {
    /// The bytes of a regular file in chunks of `chunkSize`, never all of them at once: a pipe
    /// or a device is refused (it may never end).
    static func stream(
        _ path: String, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws(Problem) -> Void
    ) throws(Problem) {
        func failure(_ reason: RegularFileReader.Failure) -> Problem {
            Problem(description: "cannot read \(path): \(reason)")
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw failure(errno == ENOENT ? .missing : .unopenable(reason: RegularFileReader.words(errno: errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure(.unreadable(reason: RegularFileReader.words(errno: errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw failure(info.st_mode & S_IFMT == S_IFDIR ? .folder : .notRegular(kind: "a special file"))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(.unreadable(reason: RegularFileReader.words(errno: errno)))
            }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// The whole of a small regular file (`run.json`), refused beyond `limit` bytes.
    static func contents(_ path: String, limit: Int) throws(Problem) -> Data {
        do {
            return Data(try RegularFileReader.contents(path: path, limit: limit))
        } catch {
            throw Problem(description: "cannot read \(path): \(error)")
        }
    }
}
