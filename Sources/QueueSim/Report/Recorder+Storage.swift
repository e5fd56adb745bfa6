extension Recorder {
    /// What the recorder holds for its groups: made as a group's visitors are recorded, so a
    /// scenario of 2,000 groups costs what its visitors cost (issue 51).
    package struct GroupStorage: Sendable, Equatable {
        /// (group, outcome) cells with a visitor (`summary.csv`'s rows).
        package var cells: Int
        /// HdrHistograms in those cells and in the report's wait curves: a timing's values stay
        /// a short list until there are `TimingValues.listLimit` of them.
        package var histograms: Int
        /// Groups with per-second columns for `metrics.prom` (those that had a visitor).
        package var seriesGroups: Int
    }

    /// run.json's `configuration` and report.html's groups table, made during the run
    /// (`Recorder.renderedConfiguration`).
    struct RenderedConfiguration: Sendable {
        /// Nil when it could not be: run.json renders it again, and says why.
        var json: [UInt8]?
        var groupsTable: String
    }
}
