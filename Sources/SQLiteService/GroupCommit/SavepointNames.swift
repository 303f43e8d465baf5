/// The name of the savepoints group commit opens: a reserved prefix and a random per-process part no client can
/// know.
///
/// The SQL policy's authorizer denies every savepoint whose name starts with ``reservedPrefix`` unless it carries
/// this process's random part (see ``SQLPolicy/denialReason(for:role:)``), so a client's `SAVEPOINT`, `RELEASE` or
/// `ROLLBACK TO` inside `/transaction` cannot name the group's savepoints or another request's; the random part
/// (128 bits, never sent anywhere) makes the name unguessable too.
///
/// One name serves every savepoint, nested or not: SQLite's `RELEASE` and `ROLLBACK TO` act on the innermost
/// savepoint of that name, and each unit releases its own before the unit around it goes on. So its three
/// statements are prepared once and taken from the writer's statement cache ever after (a fresh name per request
/// made every request prepare them anew and push other statements out of the cache).
enum SavepointNames {
    /// The prefix of every group commit savepoint name.
    static let reservedPrefix = "sqlited_gc_"

    /// The prefix of the names this process opens: ``reservedPrefix`` and the random part.
    private static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
        return reservedPrefix + random + "_"
    }()

    /// The name of one request's or one statement's savepoint.
    static let unit = processPrefix + "unit"

    /// Whether a savepoint statement naming `name` must be denied: a reserved name this process did not make.
    static func isDenied(_ name: String) -> Bool {
        name.lowercased().hasPrefix(reservedPrefix) && !name.hasPrefix(processPrefix)
    }
}
