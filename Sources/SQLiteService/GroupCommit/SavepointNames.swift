import Synchronization

/// Names of the savepoints group commit opens: a reserved prefix, a random per-process part no client can know, and
/// a counter.
///
/// The SQL policy's authorizer denies every savepoint whose name starts with ``reservedPrefix`` unless it carries
/// this process's random part (see ``SQLPolicy/denialReason(for:role:)``), so a client's `SAVEPOINT`, `RELEASE` or
/// `ROLLBACK TO` inside `/transaction` cannot name the group's savepoints or another request's; the random part
/// (128 bits, never sent anywhere) makes the names unguessable too.
enum SavepointNames {
    /// The prefix of every group commit savepoint name.
    static let reservedPrefix = "sqlited_gc_"

    /// The prefix of the names this process opens: ``reservedPrefix`` and the random part.
    private static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
        return reservedPrefix + random + "_"
    }()

    private static let counter = Atomic<UInt64>(0)

    /// A fresh name for one request's or one statement's savepoint.
    static func next() -> String {
        processPrefix + String(counter.add(1, ordering: .relaxed).newValue)
    }

    /// Whether a savepoint statement naming `name` must be denied: a reserved name this process did not make.
    static func isDenied(_ name: String) -> Bool {
        name.lowercased().hasPrefix(reservedPrefix) && !name.hasPrefix(processPrefix)
    }
}
