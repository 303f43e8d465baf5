internal import CSQLite
public import Foundation

extension Statement {
    /// The number of result columns (0 for a statement that returns no rows).
    public var columnCount: Int {
        Int(sqlite3_column_count(handle))
    }

    /// The result column names (`sqlite3_column_name`), in order.
    ///
    /// Read from SQLite once per compilation of the statement: a cached statement reused by many requests does
    /// not build the same strings again, and a recompilation (after a schema change, which can change `*`) is
    /// noticed through its counter.
    public var columnNames: [String] {
        let compilation = compilationCount
        if let cached = cachedColumnNames, cached.compilation == compilation { return cached.names }
        let names = (0..<columnCount).map { index in
            sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
        }
        cachedColumnNames = (compilation, names)
        return names
    }

    /// The declared type of each result column (`sqlite3_column_decltype`), or `nil` for an expression; cached
    /// like ``columnNames``.
    public var declaredTypes: [String?] {
        let compilation = compilationCount
        if let cached = cachedDeclaredTypes, cached.compilation == compilation { return cached.types }
        let types = (0..<columnCount).map { index in
            sqlite3_column_decltype(handle, Int32(index)).map { String(cString: $0) }
        }
        cachedDeclaredTypes = (compilation, types)
        return types
    }

    /// An object computed from the statement (its SQL and its result columns) once per compilation of it.
    ///
    /// A cached statement serves many requests; what a caller derives from its columns every time (their
    /// encoding in a response, say) can be derived once. The value is dropped when SQLite recompiles the statement
    /// (a schema change can change its columns) or when a value of another type is asked for; the statement
    /// keeps one value.
    public func memoized<Value: AnyObject>(_ derive: (Statement) -> Value) -> Value {
        let compilation = compilationCount
        // A class instance: checking its type is a pointer comparison, where a value in an `Any` is copied out.
        if let memo, memo.compilation == compilation, let value = memo.value as? Value {
            return value
        }
        let value = derive(self)
        memo = (compilation, value)
        return value
    }

    /// How many times SQLite has recompiled the statement (`SQLITE_STMTSTATUS_REPREPARE`).
    var compilationCount: Int32 {
        sqlite3_stmt_status(handle, Int32(SQLITE_STMTSTATUS_REPREPARE), 0)
    }

    /// The index of the first result column called `name`, compared case-insensitively (as SQLite compares
    /// identifiers), or `nil` when there is none.
    ///
    /// The column names are read once per execution; a lookup then compares strings, looking first at the column
    /// after the previous hit (see `ColumnNameTable`), so reading a row by name, column after column, hashes nothing.
    public func columnIndex(named name: String) -> Int? {
        guard let table = columnNameTable else {
            columnNameTable = ColumnNameTable(names: columnNames)
            return columnIndex(named: name)
        }
        let index = table.index(of: name, hint: nextColumnHint)
        if let index {
            nextColumnHint = index &+ 1
        }
        return index
    }

    // The readers below work on the current row, after `step()` returned true. Like the C API they do not check
    // that a row is available: out of range or without a row they read NULL.

    /// The storage class of column `index` in the current row.
    public func columnType(at index: Int) -> ColumnType {
        ColumnType(sqliteType: sqlite3_column_type(handle, Int32(index)))
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` as an integer, converted by SQLite (`sqlite3_column_int64`; NULL is 0).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` as a double, converted by SQLite (`sqlite3_column_double`; NULL is 0.0).
    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// Calls `body` with the UTF-8 bytes of column `index` (`sqlite3_column_text` + `sqlite3_column_bytes`,
    /// embedded NUL bytes included; empty for NULL). The bytes are valid only inside `body`.
    public func withUnsafeTextBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let column = Int32(index)
        let text = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? text : nil, count: count))
    }

    /// Calls `body` with the bytes of column `index` (`sqlite3_column_blob` + `sqlite3_column_bytes`; empty for a
    /// zero-length blob or NULL). The bytes are valid only inside `body`.
    public func withUnsafeBlobBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let column = Int32(index)
        let blob = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? blob : nil, count: count))
    }

    /// Column `index` as text (embedded NUL bytes kept), or `nil` for NULL.
    public func string(at index: Int) -> String? {
        if isNull(at: index) {
            return nil
        }
        return withUnsafeTextBytes(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Column `index` as bytes, or `nil` for NULL; a zero-length blob is empty `Data`.
    public func data(at index: Int) -> Data? {
        if isNull(at: index) {
            return nil
        }
        return withUnsafeBlobBytes(at: index) { Data($0) }
    }

    /// Column `index` of the current row with its storage class.
    public func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            return .text(withUnsafeTextBytes(at: index) { String(decoding: $0, as: UTF8.self) })
        case SQLITE_BLOB:
            // Checked type first: sqlite3_column_blob returns NULL for a zero-length blob.
            return .blob(withUnsafeBlobBytes(at: index) { Data($0) })
        default:
            return .null
        }
    }
}
