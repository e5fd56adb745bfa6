// libFuzzer target for the feeders' CSV reader (RFC 4180). Any text must parse or fail with a
// positioned `malformed` error, and what parses must survive a round trip: the rows written
// back with every field quoted read back as the same rows (a cheap oracle for quoting, doubled
// quotes, CR/LF inside quotes and blank-line handling).
import Foundation

@testable import QueueSim

@_cdecl("LLVMFuzzerTestOneInput")
public func csvFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    // The reader refuses non-UTF-8 before parsing, as `read(path:column:)` does.
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    let rows: [[String]]
    do {
        rows = try CSVColumnReader.parse(text, path: "feeder.csv")
    } catch {
        guard case .malformed(_, let line, _) = error, line >= 1 else { fatalError("unexpected failure \(error)") }
        return 0
    }
    // Quotes doubled scalar by scalar, as the reader reads: a `"` followed by a combining mark
    // is one `Character`, which a `String` search for `"` would not find.
    var written = ""
    for row in rows {
        for (index, field) in row.enumerated() {
            if index > 0 { written += "," }
            written += "\""
            for scalar in field.unicodeScalars {
                if scalar == "\"" { written.unicodeScalars.append(scalar) }
                written.unicodeScalars.append(scalar)
            }
            written += "\""
        }
        written += "\n"
    }
    do {
        let again = try CSVColumnReader.parse(written, path: "feeder.csv")
        guard again == rows else { fatalError("round trip changed the rows: \(rows) -> \(again)") }
    } catch {
        fatalError("the reader refused its own quoting: \(error)")
    }
    // The column lookup over the parsed header (trimmed names), as feeders use it.
    if let header = rows.first, let name = header.first {
        _ = header.map { $0.trimmingCharacters(in: .whitespaces) }.firstIndex(of: name)
    }
    return 0
}
