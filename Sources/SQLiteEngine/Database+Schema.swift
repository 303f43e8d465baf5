extension Database {
    // Names are always bound as parameters (schema tables, pragma table-valued functions), never spliced into SQL.

    /// Whether a table (ordinary or virtual) named `name` exists in `main` or `temp`, compared case-insensitively.
    public func tableExists(_ name: String) throws -> Bool {
        try scalar(
            sql: """
                SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE
                UNION ALL
                SELECT 1 FROM sqlite_temp_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE
                """,
            arguments: [.text(name)]
        ) != nil
    }

    /// Whether `table` has a column named `column`, compared case-insensitively.
    public func columnExists(_ column: String, in table: String) throws -> Bool {
        try scalar(
            sql: "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE",
            arguments: [.text(table), .text(column)]
        ) != nil
    }

    /// Every object of the `main` and `temp` schemas (tables, indexes, views, triggers), including SQLite's
    /// internal ones (see ``SchemaObject/isInternal``), ordered by schema then as stored.
    public func schema() throws -> [SchemaObject] {
        let rows = try fetchAll(
            sql: """
                SELECT type, name, tbl_name, sql, 0 FROM sqlite_schema
                UNION ALL
                SELECT type, name, tbl_name, sql, 1 FROM sqlite_temp_schema
                """
        )
        return rows.map { row in
            SchemaObject(
                type: row.string(at: 0) ?? "",
                name: row.string(at: 1) ?? "",
                tblName: row.string(at: 2) ?? "",
                sql: row.string(at: 3),
                isTemporary: row.bool(at: 4) ?? false
            )
        }
    }

    /// The columns of `table` (or view), or `nil` when it does not exist. The name is matched case-insensitively.
    public func tableInfo(_ table: String) throws -> [ColumnInfo]? {
        let rows = try fetchAll(
            sql: "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)",
            arguments: [.text(table)]
        )
        if rows.isEmpty {
            return nil
        }
        return rows.map { row in
            ColumnInfo(
                cid: row.int(at: 0) ?? 0,
                name: row.string(at: 1) ?? "",
                type: row.string(at: 2) ?? "",
                notNull: row.bool(at: 3) ?? false,
                defaultValue: row.string(at: 4),
                primaryKeyIndex: row.int(at: 5) ?? 0
            )
        }
    }

    /// `PRAGMA user_version`.
    public var userVersion: Int32 {
        get throws {
            Int32(truncatingIfNeeded: try int64(sql: "PRAGMA user_version") ?? 0)
        }
    }

    /// Sets `PRAGMA user_version`.
    public func setUserVersion(_ version: Int32) throws {
        // PRAGMA values cannot be bound; an Int32 printed in decimal is safe to splice.
        try execute(sql: "PRAGMA user_version = \(version)")
    }

    /// `PRAGMA application_id`.
    public var applicationID: Int32 {
        get throws {
            Int32(truncatingIfNeeded: try int64(sql: "PRAGMA application_id") ?? 0)
        }
    }

    /// Sets `PRAGMA application_id`.
    public func setApplicationID(_ id: Int32) throws {
        try execute(sql: "PRAGMA application_id = \(id)")
    }
}

/// What ``Database/schemaMayFailPartWay`` keeps between calls: its `PRAGMA schema_version`, prepared once outside
/// the statement cache (a server asks before every write: a cached statement would count a miss per connection and
/// take a place among the clients' statements), and its answer for the schema version it was read at.
struct FailResolutionCache {
    var versionStatement: Statement?
    var answer: (schemaVersion: Int64, mayFail: Bool)?
}

extension Database {
    /// Whether an object of the `main` schema mentions `FAIL` — a conflict clause (`ON CONFLICT FAIL`) or a
    /// trigger's `RAISE(FAIL, …)` —, with which a failing statement keeps what it did before it failed (SQLite's FAIL
    /// resolution) instead of being undone. The text is matched, so a name holding "fail" counts too; a schema that
    /// cannot be read counts as yes. (`temp` objects are not looked at.)
    ///
    /// Cached on this connection until the schema changes: each call runs one `PRAGMA schema_version`, prepared
    /// once and kept outside the statement cache.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_conflict.html>
    public var schemaMayFailPartWay: Bool {
        do {
            guard let version = try currentSchemaVersion() else { return true }
            if let answer = failResolutionCache.answer, answer.schemaVersion == version { return answer.mayFail }
            let search = try makeStatement(sql: "SELECT 1 FROM sqlite_schema WHERE sql LIKE '%fail%' LIMIT 1")
            let mayFail = try search.step()
            search.reset()
            failResolutionCache.answer = (version, mayFail)
            return mayFail
        } catch {
            return true
        }
    }

    /// `PRAGMA schema_version` through ``FailResolutionCache/versionStatement``.
    private func currentSchemaVersion() throws -> Int64? {
        let statement: Statement
        if let kept = failResolutionCache.versionStatement, kept.isValid {
            statement = kept
        } else {
            statement = try makeStatement(sql: "PRAGMA schema_version")
            failResolutionCache.versionStatement = statement
        }
        defer { statement.reset() }
        guard try statement.step(), case .integer(let version) = statement.value(at: 0) else { return nil }
        return version
    }
}
