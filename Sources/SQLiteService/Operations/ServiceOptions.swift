public import Logging

/// Operational settings of the service: backups, the request log, metrics and the console.
///
/// All of them may change while serving, with ``SQLiteService/setOptions(_:)``; requests that start afterwards use
/// the new values.
public struct ServiceOptions: Sendable {
    /// Where `POST /backup` writes its files; `nil` turns the endpoint off (it answers 404 `NOT_FOUND`).
    ///
    /// The directory is created (with its parents) on the first backup when missing.
    public var backupDirectory: String? = nil
    /// The level of the one line logged per request (method, path, status, duration, bytes).
    public var requestLogLevel: Logger.Level = .info
    /// The metrics `GET /metrics` reports and every request updates; `nil` turns the endpoint off (it answers 404
    /// `NOT_FOUND`) and records nothing.
    public var metrics: ServiceMetrics? = nil
    /// How concurrent writes share one transaction and one fsync.
    public var groupCommit = GroupCommitOptions()
    /// Whether the web console is served (`GET /ui`, its files, and `GET /` redirecting to it); off, those paths
    /// answer 404 `NOT_FOUND` like any unknown path.
    public var consoleEnabled = true
    /// How long a stored `Idempotency-Key` answers retries before it is forgotten (`idempotency.retention`).
    public var idempotencyRetention: Duration = .seconds(86_400)

    /// `idempotencyRetention` in whole seconds, at least 1: what the keys' `created` column is compared with.
    var idempotencyRetentionSeconds: Int64 { max(1, idempotencyRetention.components.seconds) }

    public init() {}
}
