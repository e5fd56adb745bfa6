// The configuration's `groups` written straight to bytes, as run.json's group figures are
// (`RunManifest+GroupJSON.swift`): the same bytes as the generic encoder's, without an encoder
// per member. A run of 2,000 groups writes them twice (the pending file at its start, run.json
// at its end), and encoding them member by member was a tenth of such a run's time (issue 51).
// `RunConfigurationGroupJSONTests` holds the two to the same bytes.
extension RunConfiguration {
    /// `groups` as their own `encode(to:)` would write them, but through `DirectJSON` when the
    /// encoder is `SortedJSONEncoder`'s (every report file); any other encoder gets the
    /// ordinary encoding.
    struct GroupEntriesEncoding: Encodable {
        var groups: [GroupEntry]

        func encode(to encoder: any Encoder) throws {
            guard let sorted = encoder as? SortedJSONValueEncoder else { return try groups.encode(to: encoder) }
            var json = DirectJSON(pretty: sorted.pretty, depth: sorted.depth)
            // About 600 bytes a group, pretty-printed.
            json.reserve(640 * groups.count)
            json.open(UInt8(ascii: "["))
            for (index, group) in groups.enumerated() {
                json.element()
                try group.write(to: &json, path: sorted.codingPath + [IndexKey(intValue: index)])
            }
            json.close(UInt8(ascii: "]"))
            sorted.storage = .value(json.bytes)
        }
    }

    /// An array element's place in an error's coding path.
    private struct IndexKey: CodingKey {
        var intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}

extension RunConfiguration.GroupEntry {
    /// Members in the order of their keys' bytes; an optional member only when it is set, as
    /// the synthesized `encode(to:)` writes them.
    fileprivate func write(to json: inout DirectJSON, path: @autoclosure () -> [any CodingKey]) throws {
        json.open(UInt8(ascii: "{"))
        optional("after_pass", afterPass, to: &json)
        optional("comeback", comeback, to: &json)
        json.key("connections")
        json.string(connections)
        optional("enqueue_key", enqueueKey, to: &json)
        optional("enqueue_token", enqueueToken, to: &json)
        json.key("flow")
        json.string(flow)
        optional("invite_code", inviteCode, to: &json)
        json.key("max_restarts")
        json.number(maxRestarts)
        json.key("max_wait_ms")
        json.number(maxWaitMs)
        json.key("name")
        json.string(name)
        if let noShow {
            json.key("no_show")
            try json.number(noShow, at: path() + [CodingKeys.noShow])
        }
        optional("patience", patience, to: &json)
        json.key("platform")
        json.string(platform)
        json.key("poll_interval_ms")
        json.number(pollIntervalMs)
        json.key("queue_page_retry")
        json.string(queuePageRetry)
        json.key("request_timeout_ms")
        json.number(requestTimeoutMs)
        json.key("sdk_version")
        json.string(sdkVersion)
        json.key("share")
        try json.number(share, at: path() + [CodingKeys.share])
        json.key("target_overrides")
        json.object(targetOverrides)
        json.key("user_agent")
        json.string(userAgent)
        json.key("weight")
        try json.number(weight, at: path() + [CodingKeys.weight])
        json.close(UInt8(ascii: "}"))
    }

    private func optional(_ name: StaticString, _ value: String?, to json: inout DirectJSON) {
        guard let value else { return }
        json.key(name)
        json.string(value)
    }
}
