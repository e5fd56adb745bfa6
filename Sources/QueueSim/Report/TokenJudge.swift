import QueueClientCore

/// Judges the `token` column: `present`, `absent` or `invalid`. Never keeps the token.
///
/// Against the embedded room we know the secret, so a token must pass the KnownUser V3 check
/// (hash, event id, expiry) at the moment the visitor received it. Against a real endpoint the
/// secret is unknown: a token is `invalid` only when it does not even have a token's shape.
package struct TokenJudge: Sendable {
    private let secretKey: String?
    /// The key's HMAC pads, hashed once for the whole run.
    private let preparedKey: PreparedHMAC?
    private let epochUnixSeconds: Int64
    /// False for a run that writes no `token` column (a sweep's point): a token is `present`
    /// without a look at it.
    private var checks = true

    package init(secretKey: String?, epochUnixSeconds: Int64) {
        self.secretKey = secretKey
        self.preparedKey = secretKey.map(PreparedHMAC.init(key:))
        self.epochUnixSeconds = epochUnixSeconds
    }

    /// The judge of a run that keeps figures only: no row, so no `token` cell to judge.
    package static let forFiguresOnly: TokenJudge = {
        var judge = TokenJudge(secretKey: nil, epochUnixSeconds: 0)
        judge.checks = false
        return judge
    }()

    package func judge(_ token: String?, eventId: String, at instant: RunInstant) -> TokenState {
        guard let token, !token.isEmpty else { return .absent }
        guard checks else { return .present }
        guard let secretKey, let preparedKey else {
            return KnownUserTokenValidator.hasEventIdAndHash(token) ? .present : .invalid
        }
        let now = epochUnixSeconds + instant.wholeSecondsSinceOrigin
        let validator = KnownUserTokenValidator(secretKey: secretKey, preparedKey: preparedKey, eventId: eventId)
        return validator.check(token, nowUnixSeconds: now) == nil ? .present : .invalid
    }
}
