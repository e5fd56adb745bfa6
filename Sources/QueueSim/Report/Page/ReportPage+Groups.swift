/// Which groups report.html shows one by one. A scenario of 2,000 small groups drew 2,000 wait
/// curves and 2,000 groups' table rows (9 MB, a fifth of the run's time, issue 51); the page now
/// shows the largest few and says how many more there are and where they are.
extension ReportPage {
    /// The most groups the outcomes table, the failure causes and the wait curves show.
    static let groupsShown = 12

    /// The groups shown, in report order: every group when there are `groupsShown` or fewer,
    /// else the `groupsShown` with the most visitors (on a tie, the earlier in report order).
    var shownGroups: [Int] {
        let order = statistics.reportGroupOrder
        guard order.count > Self.groupsShown else { return order }
        let largest = order.enumerated()
            .sorted {
                (statistics.visitorsPerGroup[$1.element], $0.offset) < (
                    statistics.visitorsPerGroup[$0.element], $1.offset
                )
            }
            .prefix(Self.groupsShown)
        return largest.sorted { $0.offset < $1.offset }.map(\.element)
    }

    /// Groups left out of a section: the groups not shown for which `has` holds.
    func hiddenGroups(where has: (_ group: Int) -> Bool) -> Int {
        let shown = Set(shownGroups)
        return statistics.reportGroupOrder.count { !shown.contains($0) && has($0) }
    }

    /// The sentence under a section that left out `count` groups (nothing when none).
    static func moreGroupsNote(_ count: Int, _ what: String, see files: String) -> String {
        guard count > 0 else { return "" }
        let groups = count == 1 ? "1 more group" : "\(ScenarioUnits.grouped(Double(count))) more groups"
        return
            "<p class=\"note\">\(groups) \(HTML.escape(what)): see \(HTML.escape(files)) (the page shows the \(groupsShown) groups with the most visitors).</p>\n"
    }
}
