import SQLiteEngine

/// What the service derives from a prepared statement before running it: its transaction-control class and the
/// JSON encoding of its result columns.
///
/// Computed once per compilation of a (cached) statement through `Statement.memoized(_:)`, not once per request:
/// encoding the column names and types of every response, and classifying the SQL text of every request, were
/// measured at about a tenth of a point query's instructions.
final class StatementProfile {
    /// `BEGIN`/`COMMIT`/… or `SAVEPOINT`/… (see ``TransactionControl``), or nil for any other statement.
    let transactionControl: TransactionControl?
    /// The policy's reason when the statement is a `VACUUM` (refused by the policy in every case), else nil.
    let vacuumDenial: String?
    let columnCount: Int
    /// The result columns' names.
    let columnNames: [String]
    /// `"columns":[…],"types":[…],"rows":[` — empty when the statement has no result columns.
    let header: [UInt8]
    /// For each column, `"name":` for the columns a row object carries (the last of each name), else nil.
    let objectKeys: [[UInt8]?]

    /// The profile of `statement`, computed on first use after each compilation.
    static func of(_ statement: Statement) -> StatementProfile {
        statement.memoized { StatementProfile($0) }
    }

    private init(_ statement: Statement) {
        transactionControl = TransactionControl.classify(statement.sql)
        vacuumDenial = SQLPolicy.vacuumDenial(statement.sql)
        columnCount = statement.columnCount
        let names = statement.columnNames
        columnNames = names
        let layout = ObjectRowLayout(columnNames: names)
        objectKeys = names.indices.map { index in
            guard layout.writesColumn[index] else { return nil }
            var key = JSONWriter(capacity: names[index].utf8.count + 3)
            key.key(names[index])
            return key.bytes
        }
        guard columnCount > 0 else {
            header = []
            return
        }
        var out = JSONWriter(capacity: 64)
        out.key("columns")
        out.beginArray()
        for name in names { out.writeString(name) }
        out.endArray()
        out.key("types")
        out.beginArray()
        for type in statement.declaredTypes {
            if let type { out.writeString(type) } else { out.writeNull() }
        }
        out.endArray()
        out.key("rows")
        out.beginArray()
        header = out.bytes
    }
}
