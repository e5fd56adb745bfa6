/// What a visitor's WebView does when loading a queue page fails (`client.queuePageRetry`).
///
/// A page load is the first load of the queue URL, each navigation to another queue URL and
/// each reload; the re-polls in between stand for the page's own script and are out of the
/// SDK's hands (they keep polling). Failing means a transport error (the WebView's
/// `onReceivedError` for the main frame) or an answer that is neither 2xx nor 3xx (the WebView
/// shows that page; no queue script runs on it, so nothing moves the visitor again).
package enum QueuePageRetry: String, Sendable, Hashable, CaseIterable, Codable {
    /// iOS: no retry. The visitor is left on a blank or error page and ends `error`.
    case none
    /// Android 3.0.0: reload the original queue URL at once, then after 2, 4, 8, 16 and 30 s;
    /// the seventh failure in a row ends the visitor `error` (the SDK gives up on its error page).
    case reload
    /// queuesim's lenient choice: poll the current page again every `pollInterval` until
    /// `maxWait`, so visitors ride out any outage.
    case poll

    /// Android's `QueueActivityBase`: `scheduleQueueReload` posts the reload after 1 s doubled
    /// per attempt (capped at 30 s, six attempts), but the first failure also registers the
    /// network callback, and Android calls `onAvailable` at registration for the network the
    /// phone is on: that reload runs at once and cancels the 1 s one (`reloadRunnable` removes
    /// itself). A simulated phone is always online, so the first reload comes at once. A page
    /// that loads unregisters the callback (`stopReconnect`), so the next failure starts over.
    package static let reloadDelays: [Duration] = [0, 2, 4, 8, 16, 30].map { .seconds($0) }
}
