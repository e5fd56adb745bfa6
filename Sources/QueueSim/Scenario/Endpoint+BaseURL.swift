extension Endpoint {
    /// Why a text is not a base URL: the words after the usual help (", found …" or
    /// "; a path is not allowed, found …").
    package struct BaseURLProblem: Error, Equatable {
        package var detail: String
    }

    /// `http(s)://host[:port]` with no path (a trailing `/` is fine): a scenario's
    /// `target.endpoint`, or `run --endpoint`. One parser for both, so the command line
    /// accepts exactly what a scenario does.
    package static func parseBaseURL(_ text: String) -> Result<Endpoint, BaseURLProblem> {
        // Control characters would reach request lines and messages as they are.
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .failure(BaseURLProblem(detail: ", found a control character"))
        }
        var scheme: String?
        for candidate in ["http", "https"] where text.hasPrefix(candidate + "://") { scheme = candidate }
        guard let scheme else { return .failure(BaseURLProblem(detail: ", found \"\(text)\"")) }
        var rest = Substring(text.dropFirst(scheme.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            return .failure(BaseURLProblem(detail: "; a path is not allowed, found \"\(text)\""))
        }
        var host = rest
        var port: Int?
        let portSeparator =
            rest.hasPrefix("[")
            ? rest.range(of: "]:").map { rest.index(after: $0.lowerBound) } : rest.lastIndex(of: ":")
        if let portSeparator {
            host = rest[..<portSeparator]
            let portText = rest[rest.index(after: portSeparator)...]
            guard let number = Int(portText), (1...65535).contains(number) else {
                return .failure(
                    BaseURLProblem(detail: "; the port must be a number from 1 to 65535, found \"\(portText)\""))
            }
            port = number
        }
        if host.isEmpty || host.contains(" ") || host.contains("@") {
            return .failure(BaseURLProblem(detail: ", found \"\(text)\""))
        }
        return .success(.baseURL(scheme: scheme, host: String(host), port: port))
    }
}
