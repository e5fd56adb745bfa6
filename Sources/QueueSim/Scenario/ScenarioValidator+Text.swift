/// Values queuesim prints back: names (which also become report folders and CSV values) and
/// the settings `validate` and `run` show. They are refused, not cleaned, when they hold a
/// character that would act on the terminal or the line instead of showing: an escape sequence
/// can rewrite the screen, a line break forge another line, a bidi override reorder what is
/// read (`reports/gpj.exe` shown as `reports/exe.jpg`). Refusing says so at the value's
/// position; cleaning would make the run's name differ from the file's without a word.
extension ScenarioValidator {
    static let nameWhy = "names are shown in terminals, reports and CSV files, so only printable characters are allowed"
    static let shownWhy = "`validate` and `run` print it, so only printable characters are allowed"

    /// `name` and `visitors[].name`: printable and at most `ScenarioLimits.longestName` long.
    mutating func checkName(_ raw: Positioned<String>, key: String) {
        checkPrintable(raw, key: key, why: Self.nameWhy)
        let length = raw.value.unicodeScalars.count
        if length > ScenarioLimits.longestName {
            fail(
                "`\(key)` is \(length) characters long, more than the limit of \(ScenarioLimits.longestName) (counted in Unicode code points)",
                at: raw.mark)
        }
    }

    /// Refuses the value at its position when it holds a character that must not reach a
    /// terminal; true when it is printable.
    @discardableResult
    mutating func checkPrintable(_ raw: Positioned<String>, key: String, why: String = shownWhy) -> Bool {
        guard let (scalar, offset) = PrintableText.firstUnprintable(in: raw.value) else { return true }
        fail(
            "`\(key)` contains \(PrintableText.kind(of: scalar)) (\(PrintableText.codePoint(scalar))) at offset \(offset); \(why)",
            at: raw.mark)
        return false
    }
}

/// Which characters a printed scenario value may hold.
package enum PrintableText {
    /// The first character that is not printable, with its offset in code points from 0: C0
    /// controls (tab included: it shifts the summary's columns and splits CSV cells in
    /// spreadsheets), DEL, C1 controls, line and paragraph separators, and format characters
    /// (bidi embeddings, overrides, isolates and marks, zero-width spaces, U+FEFF). U+200D, the
    /// zero-width joiner, stays: it joins emoji, and error messages keep it too.
    package static func firstUnprintable(in text: String) -> (scalar: Unicode.Scalar, offset: Int)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where !isPrintable(scalar) {
            return (scalar, offset)
        }
        return nil
    }

    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: false
        case .format: scalar == "\u{200D}"
        default: true
        }
    }

    /// "a control character", "a bidi control character" …, for messages.
    static func kind(of scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return "a bidi control character"
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control: return "a control character"
        case .lineSeparator: return "a line separator"
        case .paragraphSeparator: return "a paragraph separator"
        default: return "an invisible format character"
        }
    }

    /// `U+001B`: at least four hex digits, as Unicode writes them.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
