public import SQLitedClient

/// A todo item as the service stores it.
public struct Todo: Codable, Sendable, Hashable {
    public var id: Int64
    public var title: String
    public var done: Bool
    /// When it was added, seconds since 1970 (UTC), set by the database.
    public var created: Int64

    private enum CodingKeys: String, CodingKey { case id, title, done, created }

    /// SQLite has no boolean type: `done` arrives as the integer 0 or 1, which `Bool`'s own decoding refuses.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        done = try container.decode(Int64.self, forKey: .done) != 0
        created = try container.decode(Int64.self, forKey: .created)
    }
}

/// The todo service's data, kept in sqlited: every operation is one request, every write keyed so that its retries
/// (``SQLitedClient`` retries 503 + `Retry-After`) never add an item twice.
public struct TodoStore: Sendable {
    let client: SQLitedClient

    public init(client: SQLitedClient) {
        self.client = client
    }

    /// Creates the table when it is missing (safe to run on every start).
    public func migrate() async throws {
        _ = try await client.update(
            """
            CREATE TABLE IF NOT EXISTS todos (
                id INTEGER PRIMARY KEY,
                title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
                done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
                created INTEGER NOT NULL DEFAULT (unixepoch())
            )
            """
        )
    }

    /// Adds an item and returns it. `requestID` (the caller's own, e.g. from its HTTP request) keys the write: the
    /// same `requestID` twice adds one item.
    @discardableResult
    public func add(_ title: String, requestID: String? = nil) async throws -> Todo {
        let write = try await client.update(
            "INSERT INTO todos (title) VALUES (?)",
            [.text(title)],
            idempotencyKey: requestID.map { "todo-add-\($0)" }
        )
        guard let id = write.lastInsertRowID, let todo = try await find(id) else {
            throw TodoError.notFound(write.lastInsertRowID ?? 0)
        }
        return todo
    }

    /// The item `id`, if any.
    public func find(_ id: Int64) async throws -> Todo? {
        try await client.query("SELECT id, title, done, created FROM todos WHERE id = ?", [.integer(id)], as: Todo.self)
            .first
    }

    /// Open items first, then by age; done ones only when `includeDone`.
    public func list(includeDone: Bool = false) async throws -> [Todo] {
        try await client.query(
            "SELECT id, title, done, created FROM todos WHERE done = 0 OR ? ORDER BY done, id",
            [.integer(includeDone ? 1 : 0)]
        )
    }

    /// Marks `id` done; throws ``TodoError/notFound(_:)`` when there is no such item.
    public func complete(_ id: Int64) async throws {
        let write = try await client.update("UPDATE todos SET done = 1 WHERE id = ?", [.integer(id)])
        guard write.changes == 1 else { throw TodoError.notFound(id) }
    }

    /// Removes every done item; returns how many were removed.
    public func purgeDone() async throws -> Int {
        let results = try await client.transaction([.init("DELETE FROM todos WHERE done = 1")])
        return results.first?.changes ?? 0
    }
}

public enum TodoError: Error, Equatable, CustomStringConvertible {
    case notFound(Int64)

    public var description: String {
        switch self {
        case .notFound(let id): "no todo \(id)"
        }
    }
}
