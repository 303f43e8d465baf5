/// Everything a request reads from the service's reloadable configuration, as one immutable snapshot.
///
/// A request reads the snapshot once (``SQLiteService/settings``) and uses it throughout, so that it pays for one
/// shared-lock read instead of a lock per setting, and sees one consistent configuration even when a reload
/// happens half way. Setters build a new snapshot and swap it in.
final class ServiceSettings: Sendable {
    /// Request limits.
    let limits: ServiceLimits
    /// Backups, request log level and metrics.
    let options: ServiceOptions
    /// The accepted bearer tokens; nil when authentication is off.
    let tokens: TokenStore?
    /// Whether `/health` reports ok.
    let isAvailable: Bool

    init(limits: ServiceLimits, options: ServiceOptions, tokens: TokenStore?, isAvailable: Bool) {
        self.limits = limits
        self.options = options
        self.tokens = tokens
        self.isAvailable = isAvailable
    }

    /// A copy with some settings replaced.
    func with(
        limits: ServiceLimits? = nil,
        options: ServiceOptions? = nil,
        tokens: TokenStore?? = nil,
        isAvailable: Bool? = nil
    ) -> ServiceSettings {
        ServiceSettings(
            limits: limits ?? self.limits,
            options: options ?? self.options,
            tokens: tokens ?? self.tokens,
            isAvailable: isAvailable ?? self.isAvailable
        )
    }
}
