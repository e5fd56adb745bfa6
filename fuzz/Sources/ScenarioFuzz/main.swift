// libFuzzer target for scenario decoding: any bytes given to the loader (YAML reader, decoder,
// validator, feeder checks) must load or fail with diagnostics that each carry a position in
// the file (line ≥ 1, column ≥ 1) — never a crash, a hang or unbounded memory.
import Foundation
@testable import QueueSim

/// A folder with the shipped feeder beside the scenario, so `csv: data/keys.csv` in a seed
/// resolves and the feeder checks run; other paths fail to read, which must be positioned too.
private let scenarioPath: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-scenario-fuzz-\(getpid())")
    let data = folder.appendingPathComponent("data")
    try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let keys = (1...20).map { "KEY-\($0)" }.joined(separator: "\n")
    try? Data("key,name\n\(keys)\n".utf8).write(to: data.appendingPathComponent("keys.csv"))
    return folder.appendingPathComponent("scenario.yaml").path
}()

/// `${VAR}` references expand from here only: set, empty and (by absence) unset variables.
private let environment = ["SET": "value", "EMPTY": "", "QUEUESIM_SECRET": "s3cret", "NUMBER": "12"]

@_cdecl("LLVMFuzzerTestOneInput")
public func scenarioFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    do {
        _ = try ScenarioLoader.load(bytes: bytes, path: scenarioPath, environment: environment)
    } catch {
        guard !error.diagnostics.isEmpty else { fatalError("a load error without a diagnostic") }
        for diagnostic in error.diagnostics {
            guard let line = diagnostic.line, let column = diagnostic.column, line >= 1, column >= 1 else {
                fatalError("a diagnostic without a position: \(diagnostic)")
            }
            guard !diagnostic.message.isEmpty else { fatalError("an empty message at \(line):\(column)") }
        }
    }
    return 0
}
