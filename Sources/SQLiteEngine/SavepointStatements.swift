/// The `SAVEPOINT`, `RELEASE` and `ROLLBACK TO` statements of the few savepoint names a connection uses again and
/// again, prepared once each (``Database/beginSavepoint(_:)`` and its two siblings).
///
/// A server opens a savepoint per request under one or two names (a group commit's per-request unit, a nested one):
/// building each statement's text, quoting the name and hashing the text for the statement cache cost more than
/// running the statement (callgrind: about 6,000 instructions a savepoint). Keyed on the name, compared byte for
/// byte; bounded to ``capacity`` names, the oldest replaced first; emptied when the connection closes.
struct SavepointStatements {
    /// One name's three statements, each prepared the first time it is needed.
    struct Entry {
        var name: String
        var begin: Statement?
        var release: Statement?
        var rollback: Statement?
    }

    enum Kind {
        case begin, release, rollback

        func sql(quotedName: String) -> String {
            switch self {
            case .begin: "SAVEPOINT \(quotedName)"
            case .release: "RELEASE SAVEPOINT \(quotedName)"
            case .rollback: "ROLLBACK TO SAVEPOINT \(quotedName)"
            }
        }
    }

    static var capacity: Int { 4 }

    private var entries: [Entry] = []
    /// Where the next new name goes when all places are taken.
    private var nextVictim = 0

    /// The statement of `kind` for `name`, nil when it was not prepared yet.
    func statement(_ kind: Kind, name: String) -> Statement? {
        for entry in entries where entry.name == name {
            switch kind {
            case .begin: return entry.begin
            case .release: return entry.release
            case .rollback: return entry.rollback
            }
        }
        return nil
    }

    /// Remembers `statement` as the one of `kind` for `name`.
    mutating func remember(_ statement: Statement, _ kind: Kind, name: String) {
        let index: Int
        if let known = entries.firstIndex(where: { $0.name == name }) {
            index = known
        } else if entries.count < Self.capacity {
            entries.append(Entry(name: name))
            index = entries.count - 1
        } else {
            index = nextVictim
            nextVictim = (nextVictim + 1) % Self.capacity
            entries[index] = Entry(name: name)
        }
        switch kind {
        case .begin: entries[index].begin = statement
        case .release: entries[index].release = statement
        case .rollback: entries[index].rollback = statement
        }
    }

    /// Forgets every statement (before the connection closes).
    mutating func removeAll() {
        entries.removeAll()
        nextVictim = 0
    }
}
