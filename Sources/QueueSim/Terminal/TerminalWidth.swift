#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many columns a line written to a terminal may take.
package enum TerminalWidth {
    /// Without a terminal size or `COLUMNS`, lines are cut for the classic 80 columns.
    package static let fallback = 80

    /// The width of the terminal on `descriptor` (TIOCGWINSZ), else `COLUMNS`, else 80. Asked
    /// at every refresh, so a resized window is followed.
    package static func columns(of descriptor: Int32, environment: [String: String]) -> Int {
        var size = winsize()
        let asked = ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 ? Int(size.ws_col) : nil
        return columns(terminal: asked, environment: environment)
    }

    /// The choice itself: a terminal that reports 0 columns (a pseudo-terminal nobody sized)
    /// has no size.
    package static func columns(terminal: Int?, environment: [String: String]) -> Int {
        if let terminal, terminal > 0 { return terminal }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return fallback
    }
}
