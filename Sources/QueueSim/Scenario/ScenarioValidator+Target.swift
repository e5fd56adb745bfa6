/// `target:` and the target keys a group may override.
extension ScenarioValidator {
    mutating func target(_ raw: Positioned<RawTarget>?) -> Target? {
        guard let raw else {
            reportMissing(
                "target", in: root, path: "target", expected: "a mapping with at least customerId and waitingRoomId")
            return nil
        }
        let value = raw.value
        let customerId = required(value.customerId, key: "target.customerId", in: raw.mark)
        let waitingRoomId = required(value.waitingRoomId, key: "target.waitingRoomId", in: raw.mark)
        var endpoint = Endpoint.embedded
        if let rawEndpoint = value.endpoint {
            endpoint = self.endpoint(rawEndpoint) ?? .embedded
        }
        let overrides = self.overrides(
            customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: value.waitingRoomDomain,
            queuePathPrefix: value.queuePathPrefix, layoutName: value.layoutName, language: value.language,
            protectedApi: value.protectedApi, prefix: "target")
        let protectedApiEndpoint = self.protectedApiEndpoint(value.protectedApiEndpoint)
        let caFile = self.caFile(value.caFile)
        let hosts = value.hosts.map { hostRoutes($0) } ?? []
        guard let customerId = customerId?.value, let waitingRoomId = waitingRoomId?.value else { return nil }
        var target = Target(
            customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: overrides.waitingRoomDomain,
            queuePathPrefix: overrides.queuePathPrefix, layoutName: overrides.layoutName, language: overrides.language,
            endpoint: endpoint, protectedApi: overrides.protectedApi, protectedApiEndpoint: protectedApiEndpoint,
            caFile: caFile)
        target.hosts = hosts
        target.isTest = value.isTest?.value
        return target
    }

    private mutating func required(_ raw: Positioned<String>?, key: String, in mark: YamlMark) -> Positioned<String>? {
        guard let raw else {
            fail("missing the required key `\(key)`", at: mark)
            return nil
        }
        return raw
    }

    /// Checks the target keys (shared by `target:` and groups) and collects them.
    mutating func overrides(
        customerId: Positioned<String>?, waitingRoomId: Positioned<String>?, waitingRoomDomain: Positioned<String>?,
        queuePathPrefix: Positioned<String>?, layoutName: Positioned<String>?, language: Positioned<String>?,
        protectedApi: Positioned<String>?, prefix: String
    ) -> TargetOverrides {
        if let customerId,
            !customerId.value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
                || customerId.value.isEmpty
        {
            fail(
                "`\(prefix).customerId` becomes part of a host name ({customerId}.queue-it.net): expected letters, digits and -, found \"\(customerId.value)\"",
                at: customerId.mark)
        }
        if let waitingRoomId,
            waitingRoomId.value.isEmpty || waitingRoomId.value.contains(where: { "/?# ".contains($0) })
        {
            fail(
                "`\(prefix).waitingRoomId` becomes a URL path segment: expected an id without /, ?, # or spaces, found \"\(waitingRoomId.value)\"",
                at: waitingRoomId.mark)
        } else if let waitingRoomId, let bad = waitingRoomId.value.first(where: { !Self.isEventIdCharacter($0) }) {
            fail(
                "`\(prefix).waitingRoomId` is the event id inside KnownUser tokens (e_{id}~q_…~h_…) and the session cookie's name, which cannot carry \(Self.describeCharacter(bad)): expected letters, digits and -, found \"\(waitingRoomId.value)\"",
                at: waitingRoomId.mark)
        }
        if let domain = waitingRoomDomain {
            if domain.value.contains("://") || domain.value.contains("/") {
                fail(
                    "`\(prefix).waitingRoomDomain` is a host name only (the SDK always uses https and its own path), such as queue.example.com; found \"\(domain.value)\"",
                    at: domain.mark)
            } else if domain.value.isEmpty
                || !domain.value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:".contains($0)) })
            {
                fail(
                    "`\(prefix).waitingRoomDomain` must be a host name such as queue.example.com, found \"\(domain.value)\"",
                    at: domain.mark)
            }
        }
        if let queuePathPrefix { checkPrintable(queuePathPrefix, key: "\(prefix).queuePathPrefix") }
        if let protectedApi, checkPrintable(protectedApi, key: "\(prefix).protectedApi"), !isHTTPURL(protectedApi.value)
        {
            fail(
                "`\(prefix).protectedApi` must be an http:// or https:// URL such as https://shop.example/api/protected, found \"\(protectedApi.value)\"",
                at: protectedApi.mark)
        }
        return TargetOverrides(
            customerId: customerId?.value, waitingRoomId: waitingRoomId?.value,
            waitingRoomDomain: waitingRoomDomain?.value,
            queuePathPrefix: queuePathPrefix?.value, layoutName: layoutName?.value, language: language?.value,
            protectedApi: protectedApi?.value)
    }

    /// What an event id can hold and survive every place it travels (reference §1, §2): a
    /// token splits on `~` and `_` (a pair with a second `_` is dropped, so `e` goes missing
    /// and every token is refused), the session cookie's value splits on `&` and `=` after
    /// URL-decoding (`%`, `+`), and its name `QueueITAccepted-SDFrts345E-V3_{id}` must be an
    /// HTTP token (no separators, spaces, controls or non-ASCII).
    static func isEventIdCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-")
    }

    /// `_`, `~` by name; invisible or unusual characters by their code point.
    static func describeCharacter(_ character: Character) -> String {
        guard character.isASCII, !character.isWhitespace, let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F
        else {
            let scalars = character.unicodeScalars.map { scalar in
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            return scalars.joined(separator: " ")
        }
        return "`\(character)`"
    }

    private func isHTTPURL(_ text: String) -> Bool {
        for scheme in ["http://", "https://"] where text.hasPrefix(scheme) {
            let host = text.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return !host.isEmpty && !text.contains(" ")
        }
        return false
    }

    /// `embedded`, or `http(s)://host[:port]` with no path.
    mutating func endpoint(_ raw: Positioned<String>) -> Endpoint? {
        let text = raw.value
        if text == "embedded" { return .embedded }
        guard checkPrintable(raw, key: "target.endpoint") else { return nil }
        let help =
            "`target.endpoint` must be `embedded` or a base URL such as https://host or http://127.0.0.1:8080 (scheme, host and port only)"
        switch Endpoint.parseBaseURL(text) {
        case .success(let endpoint): return endpoint
        case .failure(let problem):
            fail("\(help)\(problem.detail)", at: raw.mark)
            return nil
        }
    }
}

extension Target {
    /// `embedded` or the base URL, for messages and summaries.
    package var endpointDescription: String { Self.describe(endpoint) }

    package static func describe(_ endpoint: Endpoint) -> String {
        switch endpoint {
        case .embedded: return "embedded"
        case .baseURL(let scheme, let host, let port): return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        }
    }
}
