import Foundation
import Testing

@testable import QueueSim

/// The default report folder `reports/<name>` is derived from text the user wrote (the scenario
/// name, or its file name): it must be safe to show and to create. A `name:` with control,
/// bidi or format characters is refused (ScenarioBadInputTests); a file name can still hold
/// them, so the folder name is still made safe.
@Suite("scenario: report folder names")
struct ReportFolderNameTests {
    func folder(sanitising name: String) -> String { "reports/" + ReportFolderName.sanitised(name) }

    func folder(named name: String) throws -> String {
        let escaped = name.unicodeScalars.map {
            $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\U\(String(format: "%08X", $0.value))"
        }
        .joined().replacingOccurrences(of: "\"", with: "\\\"")
        return try ScenarioTestSupport.load(ScenarioTestSupport.minimal + "name: \"\(escaped)\"\n").reportsDirectory
    }

    @Test("bidi controls, marks and invisible format characters become _")
    func bidiAndFormatCharacters() throws {
        #expect(folder(sanitising: "launch\u{202E}gpj.exe") == "reports/launch_gpj.exe")
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0xFEFF] {
            let name = "a" + String(Unicode.Scalar(UInt32(scalar))!) + "b"
            #expect(folder(sanitising: name) == "reports/a_b", "U+\(String(scalar, radix: 16))")
        }
    }

    @Test("control characters (escape sequences, newlines, DEL, C1) become _")
    func controlCharacters() throws {
        #expect(folder(sanitising: "red\u{1B}[31mlaunch") == "reports/red_[31mlaunch")
        #expect(folder(sanitising: "two\nlines\r\u{7F}\u{85}") == "reports/two_lines___")
    }

    @Test("a long name is cut to 100 bytes at a character boundary")
    func boundedLength() throws {
        #expect(ReportFolderName.maximumBytes == 100)
        let long = try folder(named: String(repeating: "x", count: 200))
        #expect(long == "reports/" + String(repeating: "x", count: 100))
        #expect(folder(sanitising: String(repeating: "x", count: 300)) == long)
        // Three-byte characters: 33 fit (99 bytes), the 34th would cross the bound.
        let wide = try folder(named: String(repeating: "界", count: 40))
        #expect(wide == "reports/" + String(repeating: "界", count: 33))
        #expect(wide.dropFirst("reports/".count).utf8.count <= 100)
    }

    @Test("printable names are kept as written; reports.dir is taken as given")
    func printableNamesAndExplicitDirectories() throws {
        #expect(try folder(named: "spring launch (v2) ✓") == "reports/spring launch (v2) ✓")
        let explicit = try ScenarioTestSupport.load(
            ScenarioTestSupport.minimal + "name: \"a \\u00E9b\"\nreports: { dir: out/here }\n")
        #expect(explicit.reportsDirectory == "out/here")
        #expect(explicit.name == "a éb", "the name itself is kept for run.json")
    }

    @Test("the default name from the file name is made safe the same way")
    func fileNames() throws {
        let yaml = ScenarioTestSupport.minimal
        let scenario = try ScenarioLoader.load(yaml: yaml, path: "/tmp/\u{202E}lmay.yaml", environment: [:])
        #expect(scenario.reportsDirectory == "reports/_lmay")
        let dots = try ScenarioLoader.load(yaml: yaml, path: "/tmp/...yaml", environment: [:])
        #expect(dots.reportsDirectory == "reports/scenario")
    }
}
