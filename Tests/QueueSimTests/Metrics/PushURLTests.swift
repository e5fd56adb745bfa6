import TestSeeds
import Testing

@testable import QueueSim

/// Issue 51: `--metrics-push` is checked before the run (port 99999 once trapped at the end of
/// it), and a URL's credentials never reach a message or a file.
@Suite("Metrics: the push URL")
struct PushURLTests {
    static let refused: [(text: String, problem: PushURL.Problem)] = [
        ("", .empty),
        ("127.0.0.1:9090/api/v1/write", .notHTTP),
        ("ftp://host/write", .notHTTP),
        ("http//host/write", .notHTTP),
        ("http://127.0.0.1:99999/api/v1/write", .badPort("99999")),
        ("http://127.0.0.1:0/api/v1/write", .badPort("0")),
        ("http://127.0.0.1:-1/write", .badPort("-1")),
        ("http://127.0.0.1:/write", .badPort("nothing after the colon")),
        ("http://127.0.0.1:9090000000000000000000/write", .badPort("9090000000000000000000")),
        ("http:///api/v1/write", .noHost),
        ("http://user:pass@/api/v1/write", .noHost),
        ("http://host name/write", .whitespaceOrControl),
        ("http://host/write\n", .whitespaceOrControl),
        ("http://host/wr\u{7F}ite", .whitespaceOrControl),
        ("http://hóst/write", .notASCII),
        ("http://host/write#part", .fragment),
        ("http://host/api/../admin", .dotSegment),
        ("http://host/api/%2e%2E/admin", .dotSegment),
        ("http://host/./write", .dotSegment),
        ("http://host\\@evil/write", .backslash),
        ("http://host/api\\write", .backslash),
        ("http://a@b@host/write", .strayAt),
        ("http://host/write@evil.example", .strayAt),
        ("http://host/write?x=@", .strayAt),
        ("http://host/wr%zzite", .badPercentEncoding),
        ("http://host/write%4", .badPercentEncoding),
        ("http://ho$t/write", .badHost("ho$t")),
        ("http://[::1/write", .badHost("[::1")),
        ("http://[zz::1]/write", .badHost("[zz::1]")),
        ("http://../write", .badHost("..")),
    ]

    @Test(arguments: refused)
    func aBadURLIsRefusedWithItsProblem(_ text: String, _ problem: PushURL.Problem) {
        #expect(PushURL.parse(text) == .failure(problem), "\(text)")
        #expect(!problem.description.isEmpty)
    }

    @Test func goodURLsParse() throws {
        let plain = try PushURL.parse("http://127.0.0.1:9090/api/v1/write").get()
        #expect(plain.host == "127.0.0.1")
        #expect(plain.port == 9090)
        #expect(plain.pathAndQuery == "/api/v1/write")
        #expect(plain.requestURL == "http://127.0.0.1:9090/api/v1/write")
        #expect(plain.description == "http://127.0.0.1:9090/api/v1/write")
        let hosted = try PushURL.parse("HTTPS://123456:glc_TOKEN%2Fx@prometheus.grafana.net/api/prom/push").get()
        #expect(hosted.isHTTPS)
        #expect(hosted.port == nil)
        #expect(hosted.basicCredentials?.user == "123456")
        #expect(hosted.basicCredentials?.password == "glc_TOKEN/x")
        #expect(hosted.requestURL == "https://prometheus.grafana.net/api/prom/push")
        #expect(hosted.description == "https://<redacted>@prometheus.grafana.net/api/prom/push")
        let ipv6 = try PushURL.parse("http://[::1]:9090/write?tenant=a&token=abc").get()
        #expect(ipv6.host == "[::1]")
        #expect(ipv6.port == 9090)
        #expect(ipv6.description == "http://[::1]:9090/write?tenant=a&token=<redacted>")
        #expect(try PushURL.parse("http://host").get().requestURL == "http://host")
        #expect(try PushURL.parse("http://host?x=1").get().pathAndQuery == "?x=1")
    }

    static let redacted: [(text: String, redacted: String)] = [
        (
            "queuesim run s.yaml --metrics-push https://user:TOKEN@host/api/v1/write",
            "queuesim run s.yaml --metrics-push https://<redacted>@host/api/v1/write"
        ),
        ("--metrics-push=http://TOKEN@127.0.0.1:9/w", "--metrics-push=http://<redacted>@127.0.0.1:9/w"),
        ("\"http://a:b@[::1]:9/w\"", "\"http://<redacted>@[::1]:9/w\""),
        ("http://<redacted>@host/w", "http://<redacted>@host/w"),
        ("mail me at someone@example.com", "mail me at someone@example.com"),
        ("http://host/w?user=a@b", "http://host/w?user=a@b"),
        ("https://host/push?token=abc123&x=1", "https://host/push?token=<redacted>&x=1"),
        ("https://host/push?x=1&API_KEY=abc#f", "https://host/push?x=1&API_KEY=<redacted>#f"),
        ("https://host/push?access_token=abc", "https://host/push?access_token=<redacted>"),
        ("out of order sample token=abc123", "out of order sample token=<redacted>"),
        ("tokens=3 x_token=1", "tokens=3 x_token=1"),
        ("?token=<redacted>", "?token=<redacted>"),
    ]

    @Test(arguments: redacted)
    func urlCredentialsAreRedacted(_ text: String, _ expected: String) {
        #expect(SecretRedaction.redact(text) == expected)
        #expect(SecretRedaction.redact(expected) == expected, "redacting twice changes nothing")
    }

    /// Generated URLs, mutated from good ones a character at a time: parsing never traps, a URL
    /// it accepts is one its own request URL parses back to, and what it says never holds the
    /// user info.
    @Test func generatedURLsNeverTrapAndAcceptedOnesRoundTrip() throws {
        var random = SplitMix64(seed: 51)
        let seeds = [
            "http://127.0.0.1:9090/api/v1/write", "https://u:p@h.example/api/prom/push?x=1",
            "http://[::1]:80/w", "http://host",
        ]
        let alphabet = Array("aZ09:/?#@[]%.\\ \t-_~!$&'()*+,;=\u{0}\u{7F}é")
        for _ in 0..<20_000 {
            var characters = Array(seeds[random.below(seeds.count)])
            for _ in 0..<(1 + random.below(4)) {
                let index = random.below(characters.count + 1)
                let character = alphabet[random.below(alphabet.count)]
                switch random.below(3) {
                case 0: characters.insert(character, at: index)
                case 1 where index < characters.count: characters.remove(at: index)
                default: if index < characters.count { characters[index] = character }
                }
            }
            let text = String(characters)
            guard case .success(let url) = PushURL.parse(text) else { continue }
            let again = try PushURL.parse(url.requestURL).get()
            #expect(again.requestURL == url.requestURL, "\(text)")
            #expect(again.userInfo == nil)
            if let userInfo = url.userInfo, userInfo.count > 2 {
                #expect(!url.description.contains(userInfo + "@"), "\(text)")
            }
        }
    }
}
