/// A base URL every request is sent to instead of its own scheme, host and port (like
/// `curl --connect-to`), while the `Host` header keeps the waiting-room host.
public struct ConnectTarget: Sendable, Hashable {
    /// `http` or `https` (lowercased): a test room can be reached over plain HTTP while the
    /// requests still name the waiting room's `https` host.
    public var scheme: String
    /// The host (or address) to connect to; with `https`, also the name TLS checks.
    public var host: String
    /// Nil: the scheme's default port.
    public var port: Int?

    /// A target from its parts; the scheme is lowercased, nothing else is checked (use
    /// `init(baseURL:)` to parse and check text).
    public init(scheme: String, host: String, port: Int? = nil) {
        self.scheme = scheme.lowercased()
        self.host = host
        self.port = port
    }

    /// Parses `http://127.0.0.1:8080` or `https://staging.example`; nil if not http(s).
    public init?(baseURL: String) {
        guard let url = SimpleURL(baseURL), url.scheme == "http" || url.scheme == "https", !url.host.isEmpty else {
            return nil
        }
        self.init(scheme: url.scheme, host: url.host, port: url.port)
    }

    /// `scheme://host[:port]`.
    public var origin: String {
        "\(scheme)://\(authority)"
    }

    /// `host[:port]`, as a request's authority.
    public var authority: String {
        guard let port else { return host }
        return "\(host):\(port)"
    }
}
