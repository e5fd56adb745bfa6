import Foundation

extension FidelityText {
    /// report.html's "Rehearsal against the real event" section (`queuesim report --real`):
    /// compare's overlay chart inline, the series' errors, the score, the Total-Outflow
    /// identity and the rules in force.
    package var htmlSection: String {
        var html = "<section id=\"real\"><h2>Rehearsal against the real event</h2>\n"
        html += "<p>\(HTML.escape("\(realName): \(alignment)"))</p>\n"
        html +=
            "<div class=\"scroll\"><table><tr><th>series</th><th>MAPE</th><th>minutes scored</th><th>largest gap</th></tr>\n"
        for series in report.series {
            html +=
                "<tr><td>\(HTML.escape(series.name))</td><td class=\"num\">\(HTML.escape(Self.percent(series.mape)))</td>"
                + "<td class=\"num\">\(series.scoredMinutes)/\(series.comparedMinutes)</td>"
                + "<td>\(HTML.escape(Self.gap(series.largestGap, series: series.name)))</td></tr>\n"
        }
        html += "</table></div>\n"
        html +=
            "<p><strong>score \(HTML.escape(Self.percent(report.score)))</strong> (the mean of the series' errors)</p>\n"
        html += "<p>\(HTML.escape(identityLine))</p>\n"
        html += "<div class=\"scroll\"><table><tr><th>rule</th><th>value</th><th>verdict</th></tr>\n"
        for verdict in report.verdicts {
            let word = verdictWord(verdict)
            let style = word == "ok" ? "pass" : word == "broken" ? "fail" : ""
            html +=
                "<tr><td><code>\(HTML.escape("\(verdict.rule)"))</code></td><td class=\"num\">\(HTML.escape(value(verdict)))</td>"
                + "<td class=\"\(style)\">\(word)</td></tr>\n"
        }
        html += "</table></div>\n"
        html +=
            "<figure>\n" + svg
            + "<figcaption>The run solid, the real event dashed, by the run's minute.</figcaption></figure>\n"
        return html + "</section>\n"
    }

    /// `page` (report.html as `ReportPage` writes it) with the section before its footer.
    package func page(inserting page: String) -> String? {
        guard let footer = page.range(of: "<footer>", options: .backwards) else { return nil }
        return String(page[..<footer.lowerBound]) + htmlSection + String(page[footer.lowerBound...])
    }
}
