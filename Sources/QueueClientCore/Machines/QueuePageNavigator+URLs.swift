import HTTPTypes

/// The queue page's URL rewrites and `Retry-After` reading, apart from the state machine.
///
/// Android's rewrites (`QueueUrlHelper`): the first queue URL gets `userId={id}&` in front of
/// its query (unless it has a `userId=`) and the invite code as `&code=` (unless it has a
/// `code=`); each later queue URL without this visitor's `userId={id}` gets it in front too.
extension QueuePageNavigator {
    /// Android's `QueueUrlHelper.updateUrl` on the queue URL the API returned: `userId={id}&` in
    /// front unless the query has a `userId=`, then `&code={code}` unless it has a `code=`.
    static func androidFirstQueueURL(_ url: SimpleURL, userId: String, inviteCode: String?) -> SimpleURL {
        var query = url.query ?? ""
        if !query.contains("userId=") { query = "userId=" + userId + "&" + query }
        if let inviteCode, !inviteCode.isEmpty, !query.contains("code=") {
            query += (query.isEmpty ? "" : "&") + "code=" + PercentEncoding.androidURIComponent(inviteCode)
        }
        var rewritten = url
        rewritten.query = query
        return rewritten
    }

    /// Android's `urlUpdateNeeded` test: the query starts with `userId={id}` or has `&userId={id}`.
    static func hasUserId(_ userId: String, _ url: SimpleURL) -> Bool {
        guard let query = url.query else { return false }
        let item = "userId=" + userId
        return query.hasPrefix(item) || query.contains("&" + item)
    }

    /// What `UriOverrider` loads instead of a queue URL without this visitor's id.
    static func prependingUserId(_ userId: String, to url: SimpleURL) -> SimpleURL {
        let query = url.query ?? ""
        guard !query.contains("userId=") else { return url }
        var rewritten = url
        rewritten.query = "userId=" + userId + "&" + query
        return rewritten
    }

    /// `Retry-After` in whole seconds (≥ 1); zero, dates and garbage fall back to the interval.
    /// Whether a 2xx page is one that advances by its own script, as Queue-it's real queue page
    /// does: an HTML document without `Retry-After`. queuesim's room (and the queue page
    /// protocol of docs/contract.md) answers a waiting visitor with `Retry-After` and JSON; a
    /// real queue page's script asks Queue-it for the visitor's status and navigates at its
    /// turn, which an HTTP-only WebView cannot do, so reloading it would only storm the edge.
    /// `Content-Type` says so when the transport keeps it; the live engine's client keeps only
    /// the fields the machines read (`IncomingResponse.fieldsReadByMachines`), so the body's
    /// start tells it too.
    static func isScriptPage(_ response: IncomingResponse) -> Bool {
        let fields = response.head.headerFields
        guard fields.value(of: .retryAfter) == nil else { return false }
        if let type = fields.value(of: .contentType) {
            return type.trimming([" "]).lowercased().hasPrefix("text/html")
        }
        return startsAsHTML(response.body)
    }

    /// Whether `body` opens as an HTML document (`<!DOCTYPE html` or `<html`, any case, after
    /// white space or a byte order mark).
    static func startsAsHTML(_ body: [UInt8]) -> Bool {
        let skipped: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF]
        let start = body.prefix(64).drop(while: skipped.contains).prefix(14)
        let lowered = String(decoding: start, as: UTF8.self).lowercased()
        return lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html")
    }

    static func retryAfter(_ fields: HTTPFields) -> Duration? {
        guard let text = fields.value(of: .retryAfter), let seconds = Int(text.trimming([" "])), seconds >= 1 else {
            return nil
        }
        return .seconds(seconds)
    }
}
