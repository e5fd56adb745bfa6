/// The folder name `reports/<name>` is made of when `reports.dir` is not given.
///
/// The scenario name (or the file's name) is the user's text, but the folder is shown in
/// terminals, CI logs and file browsers: a right-to-left override (U+202E) can make
/// `reports/gpj.exe` read as `reports/exe.jpg`, an escape sequence can rewrite the terminal,
/// and a name longer than the file system's 255-byte limit would fail only when the reports
/// are written, after the whole run. So the folder name keeps the name's printable text and
/// nothing else. `reports.dir` and `--out` are taken as written: they are paths by intent.
package enum ReportFolderName {
    /// The longest folder name in UTF-8 bytes (well under the usual 255-byte limit, leaving
    /// room for the temporary and kept folders built beside it).
    package static let maximumBytes = 100

    /// What stands in for a character that cannot be part of the name.
    static let replacement: Character = "_"

    /// `name` with control characters (C0, C1, DEL), format characters (bidi embeddings,
    /// overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E/U+200F,
    /// zero-width characters, U+FEFF), line and paragraph separators, `/` and `\` each replaced
    /// by `_`, then cut to `maximumBytes` at a character boundary. A name left empty or made of
    /// dots only becomes `scenario`.
    package static func sanitised(_ name: String) -> String {
        var folder = ""
        var bytes = 0
        for character in name {
            let kept = isAllowed(character) ? character : replacement
            let size = kept.utf8.count
            guard bytes + size <= maximumBytes else { break }
            folder.append(kept)
            bytes += size
        }
        if folder.trimmingSpaces.isEmpty || folder.allSatisfy({ $0 == "." }) { return "scenario" }
        return folder
    }

    private static func isAllowed(_ character: Character) -> Bool {
        if character == "/" || character == "\\" { return false }
        return character.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned: false
            default: true
            }
        }
    }
}
