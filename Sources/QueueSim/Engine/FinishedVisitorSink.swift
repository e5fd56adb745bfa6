/// Where a clock's adapter hands the engine's finished visitors: the report's row road
/// (`Report/Rows`) implements it, `Run/` and the runners wire one to each adapter. Defined here,
/// below the results, so the engine and its adapters never name a recorder or a writer.
protocol FinishedVisitorSink {
    /// Takes one finished visitor, in the order the engine finished them. Throws when the rows
    /// can no longer be written (the run fails with that error).
    mutating func accept(_ finished: FinishedVisitor) throws

    /// Hands over what was collected so far (a live loop does it a few times a second, so a
    /// killed run loses little). Does nothing where every row goes on at once.
    mutating func flush() throws
}

extension FinishedVisitorSink {
    mutating func flush() throws {}
}
