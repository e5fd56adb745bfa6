import Foundation

/// The page's charts over time and its per-endpoint table. Per-second counts are rates: steps
/// (a burst stays a burst) while they are few, and past that a mean line in a band from the
/// lowest to the highest second of each block (`SVGChart+Band.swift`), so the comb a polling
/// crowd makes of `passed/s` reads as its level; each on its own axis: the outflow
/// (`passed/s`) would hug zero beside `requests/s`.
extension ReportPage {
    /// The x axis of a chart over the run: clock times when the run has a start instant.
    private var timeAxis: (axis: SVGChart.XAxis, label: String) {
        if let start = header.startInstant { return (.clock(start: start), "time (UTC)") }
        return (.elapsed, "time since the run started (m:ss)")
    }

    private var bucketWords: String {
        series.bucketSeconds == 1 ? "per second" : "per second, averaged over \(series.bucketSeconds) s"
    }

    private func steps(_ values: [Double]) -> [(x: Double, y: Double)] {
        values.enumerated().map { (Double($0.offset * series.bucketSeconds), $0.element) }
    }

    private func chart(
        _ title: String, yLabel: String, unit: SVGChart.Unit, _ lines: [SVGChart.Series], xMin: Double = 0,
        xMax: Double? = nil, xLabel: String? = nil
    ) -> String {
        SVGChart(
            title: title, xLabel: xLabel ?? timeAxis.label, yLabel: yLabel, unit: unit, series: lines,
            xMax: xMax ?? Double(series.rowCount), marks: description.timelineMarks, xMin: xMin, xAxis: timeAxis.axis
        ).render()
    }

    func launchSection() -> String {
        let width = Double(series.bucketSeconds)
        var html = "<section id=\"launch\"><h2>The launch over time</h2>\n"
        var arrivals: [SVGChart.Series] = [
            .init(name: "arrivals/s", points: steps(series.arrivals), style: .rate(width: width))
        ]
        if series.countsConnections {
            arrivals.append(
                .init(name: "new connections/s", points: steps(series.connections), style: .rate(width: width)))
        }
        html += chart(
            series.countsConnections ? "Arrivals and new connections (\(bucketWords))" : "Arrivals (\(bucketWords))",
            yLabel: "per second", unit: .perSecond, arrivals)
        var outflow: [SVGChart.Series] = [
            .init(name: "passed/s", points: steps(series.passed), style: .rate(width: width)),
            .init(name: "errors/s (error + unavailable)", points: steps(series.errors), style: .rate(width: width)),
        ]
        // Only in runs where visitors gave up: the other pages keep their bytes.
        if series.abandoned.contains(where: { $0 > 0 }) {
            outflow.append(.init(name: "abandoned/s", points: steps(series.abandoned), style: .rate(width: width)))
        }
        html += chart(
            "Passed: the outflow at work (\(bucketWords))", yLabel: "visitors per second", unit: .perSecond, outflow)
        html += requestsChart()
        html += loadBehindTheQueueChart()
        html += chart(
            "Visitors in the queue (largest in each \(series.bucketSeconds) s)", yLabel: "visitors", unit: .count,
            [.init(name: "in queue", points: steps(series.inQueue.map(Double.init)), style: .steps(width: width))])
        html += marksList()
        return html + "</section>\n"
    }

    /// The after-pass calls (`afterPass`) the shop behind the queue receives per second, with
    /// the peak second: the figure that says whether an outflow is safe for the shop. Empty in
    /// runs without after-pass calls.
    private func loadBehindTheQueueChart() -> String {
        guard let peak = series.afterPass.enumerated().max(by: { $0.element < $1.element }), peak.element > 0
        else { return "" }
        let width = Double(series.bucketSeconds)
        let peakText = "\(ThresholdTable.trimmed(peak.element, decimals: 2)) requests/s"
        return chart(
            "Load behind the queue: after-pass requests the shop receives (\(bucketWords)); peak \(peakText)",
            yLabel: "requests per second", unit: .perSecond,
            [.init(name: "after-pass requests/s", points: steps(series.afterPass), style: .rate(width: width))])
            + "<p class=\"peak\">Peak load behind the queue: <strong>\(peakText)</strong>"
            + (series.bucketSeconds > 1
                ? " (averaged over \(series.bucketSeconds) s; run.json has the exact second)" : "")
            + ".</p>\n"
    }

    /// Answers per second by endpoint and status class; the requests sent when the answers
    /// were not counted (a recovered run, or a merge of shards from an older queuesim).
    private func requestsChart() -> String {
        let width = Double(series.bucketSeconds)
        guard series.countsAnswers else {
            return chart(
                "Requests sent (\(bucketWords))", yLabel: "requests per second", unit: .perSecond,
                [.init(name: "requests/s", points: steps(series.requests), style: .rate(width: width))])
        }
        var lines: [SVGChart.Series] = []
        for endpoint in RequestStatistics.Endpoint.allCases {
            for ok in [true, false] {
                let values = series.answers[2 * endpoint.rawValue + (ok ? 0 : 1)]
                guard values.contains(where: { $0 > 0 }) else { continue }
                lines.append(
                    .init(
                        name: "\(endpoint.title) \(ok ? "OK" : "KO")/s", points: steps(values),
                        style: .rate(width: width)))
            }
        }
        return chart(
            "Answers by endpoint and status (\(bucketWords); OK: 1xx–3xx, KO: 4xx, 5xx, no answer)",
            yLabel: "answers per second", unit: .perSecond, lines)
    }

    func latencySection() -> String {
        let bucket = Double(series.bucketSeconds)
        var html = "<section id=\"latency\"><h2>Latency over time</h2>\n"
        func percentile(_ index: Int) -> [(x: Double, y: Double)] {
            series.enqueue.map { (Double($0.bucket) * bucket + bucket / 2, Double($0.values[index])) }
        }
        html += chart(
            "Enqueue time by when it was decided (each \(series.bucketSeconds) s)", yLabel: "enqueue time",
            unit: .milliseconds,
            [
                .init(name: "p50", points: percentile(0)), .init(name: "p95", points: percentile(1)),
                .init(name: "p99", points: percentile(2)),
            ])
        if let latency = queuePageLatency {
            if latency.bins.isEmpty {
                html += "<p>No queue-page answer: no visitor reached the queue page.</p>\n"
            } else {
                let half = Double(latency.binSeconds) / 2
                func line(_ index: Int) -> [(x: Double, y: Double)] {
                    latency.bins.filter { $0.count == 4 }.map { (Double($0[0]) + half, Double($0[index])) }
                }
                html += chart(
                    "Queue-page answer time by when it came (each \(latency.binSeconds) s, within 6 %)",
                    yLabel: "answer time", unit: .milliseconds,
                    [
                        .init(name: "p50", points: line(1)), .init(name: "p95", points: line(2)),
                        .init(name: "p99", points: line(3)),
                    ])
            }
        } else {
            html +=
                "<p>Queue-page answer times were not recorded in this report (a recovered run, or one from an older queuesim).</p>\n"
        }
        html += waitByArrivalChart()
        return html + "</section>\n"
    }

    /// Over the arrival span only: after the last arrival the chart would be empty, and its
    /// width would squeeze the span that has points.
    private func waitByArrivalChart() -> String {
        let bucket = Double(series.bucketSeconds)
        let waits = picture.waitByArrival(bucketSeconds: series.bucketSeconds)
        guard let first = waits.first, let last = waits.last else {
            return "<p>No visitor entered the queue page.</p>\n"
        }
        let middle = { (bucketIndex: Int) in Double(bucketIndex) * bucket + bucket / 2 }
        return chart(
            "Wait in the queue by arrival time (\"arrived at 0:10, waited …\")", yLabel: "wait", unit: .milliseconds,
            [
                .init(name: "p50", points: waits.map { (middle($0.bucket), Double($0.p50)) }),
                .init(name: "p95", points: waits.map { (middle($0.bucket), Double($0.p95)) }),
            ],
            xMin: Double(first.bucket) * bucket, xMax: Double(last.bucket + 1) * bucket,
            xLabel: header.startInstant == nil ? "arrival time since the run started (m:ss)" : "arrival time (UTC)")
    }

    private func marksList() -> String {
        guard !description.timelineMarks.isEmpty else { return "" }
        let items = description.timelineMarks.map { mark in
            let at = TimeTicks.label(Double(mark.fromMs) / 1000, axis: timeAxis.axis)
            return "<li>\(at): \(HTML.escape(mark.label))</li>"
        }
        return "<p>Marked on the charts:</p><ul class=\"marks\">\(items.joined())</ul>\n"
    }

    /// Per endpoint: answers, OK/KO, statuses and answer-time percentiles, as Gatling's
    /// STATISTICS and Locust's Request Statistics show them.
    func endpointsSection() -> String {
        var html = "<section id=\"endpoints\"><h2>Requests by endpoint</h2>\n"
        guard let table = endpoints else {
            return html
                + "<p>Not recorded: a recovered report, or one from an older queuesim.</p></section>\n"
        }
        guard !table.isEmpty else { return html + "<p>No request was answered.</p></section>\n" }
        html += """
            <div class="scroll"><table><tr><th>endpoint</th><th>status</th><th>count</th><th>OK</th><th>KO</th><th>KO share</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>

            """
        func times(_ latency: EndpointFigures.Latency) -> String {
            [latency.p50, latency.p95, latency.p99, latency.max].map { value in
                "<td class=\"num\">\(value.map { HTML.escape(Durations.text(milliseconds: $0)) } ?? "–")</td>"
            }.joined()
        }
        for endpoint in table {
            let share = endpoint.count > 0 ? Double(endpoint.ko) / Double(endpoint.count) * 100 : 0
            let statuses = endpoint.statuses.map { "\($0.status) × \($0.latencyMs.count)" }.joined(separator: ", ")
            html +=
                "<tr class=\"total\"><td>\(HTML.escape(endpoint.title))</td><td>\(HTML.escape(statuses))</td><td class=\"num\">\(endpoint.count)</td><td class=\"num\">\(endpoint.ok)</td><td class=\"num\">\(endpoint.ko)</td><td class=\"num\">\(String(format: "%.2f%%", share))</td>\(times(endpoint.latencyMs))</tr>\n"
            guard endpoint.statuses.count > 1 else { continue }
            for status in endpoint.statuses {
                let ok = status.ok ? status.latencyMs.count : 0
                html +=
                    "<tr><td></td><td>\(HTML.escape(status.status))</td><td class=\"num\">\(status.latencyMs.count)</td><td class=\"num\">\(ok)</td><td class=\"num\">\(status.latencyMs.count - ok)</td><td></td>\(times(status.latencyMs))</tr>\n"
            }
        }
        html += "</table></div>\n"
        html +=
            "<p class=\"note\">Answer times run from sending a request to its answer (on the wall clock a first request's includes opening its connection); OK is 1xx–3xx, KO 4xx, 5xx and requests that got no answer. Requests still in flight when the run stopped are not counted here.</p>\n"
        return html + "</section>\n"
    }
}
