/// One interactive transaction (`/transactions`) as a storage holds it: the local writer under a ``WriterLease``,
/// a reader under a `ReaderLease`, or one cluster leader connection. The endpoints, the registry, expiry and limits
/// are written once over it (``TransactionRegistry``, `SQLiteService+Transactions`); each storage makes its handles
/// (``Storage/openTransaction(_:limits:metrics:)``).
///
/// A handle is used by one request at a time (the registry's busy flag), from any thread.
protocol TransactionHandle: AnyObject, Sendable {
    /// Whether the handle holds a read snapshot (`read_only`), not the writer.
    var isReadOnly: Bool { get }

    /// Whether the transaction is still open in the storage: false once committed or rolled back, and once the
    /// storage ended it on its own (SQLite rolled it back after an interrupted statement, the leader was lost).
    var isOpen: Bool { get }

    /// Runs one request's statements through `body`, until `deadline`: in a savepoint of their own in a write
    /// transaction, so that a failure undoes this request's statements only.
    func perform<T>(
        until deadline: ContinuousClock.Instant,
        _ body: (any WriteSession) throws(APIError) -> T
    ) throws(APIError) -> T

    /// Commits, durably, after running `beforeCommit` inside the transaction (a keyed commit stores its answer
    /// there, ``IdempotentWrite``); returns `beforeCommit`'s answer. When `beforeCommit` fails the transaction stays
    /// as it was (``isOpen``); when the `COMMIT` fails it is rolled back.
    func commit(
        until deadline: ContinuousClock.Instant,
        _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
    ) throws(APIError) -> WriteAnswer

    /// Rolls back and gives the writer, reader or connection back; safe to call more than once.
    func rollback()
}
