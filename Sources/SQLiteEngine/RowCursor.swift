/// Iterates the rows of a query, one step of the statement at a time.
///
/// The cursor borrows its statement: while the cursor is open, the statement cache will not lend it to anyone
/// else. The statement is reset (releasing its read snapshot) as soon as the rows end, an error occurs, the cursor
/// is closed, or the cursor is released. Calling ``next()`` after it returned `nil`, after an error, after
/// ``close()`` or after the database closed throws ``DatabaseError/Kind-swift.enum/misuse``.
public final class RowCursor {
    private enum State {
        case ready
        case exhausted
        case failed
        case closed
    }

    /// The underlying statement, for reading the current row without copying it (valid after ``step()``
    /// returned `true`).
    public let statement: Statement
    let layout: RowLayout
    private var state = State.ready

    init(statement: Statement) {
        self.statement = statement
        self.layout = RowLayout(statement: statement)
        statement.isCheckedOut = true
    }

    deinit {
        finish()
    }

    /// The result column names.
    public var columnNames: [String] {
        layout.columnNames
    }

    /// The declared type of each result column, or `nil` for an expression.
    public var declaredTypes: [String?] {
        layout.declaredTypes
    }

    /// Steps to the next row without copying it; read it from ``statement``.
    ///
    /// - Returns: `false` at the end of the rows.
    public func step() throws -> Bool {
        switch state {
        case .ready:
            break
        case .exhausted:
            throw DatabaseError.misuse("the cursor has no more rows", sql: statement.sql)
        case .failed:
            throw DatabaseError.misuse("the cursor failed earlier and cannot be stepped", sql: statement.sql)
        case .closed:
            throw DatabaseError.misuse("the cursor is closed", sql: statement.sql)
        }
        do {
            if try statement.step() {
                return true
            }
            state = .exhausted
            finish()
            return false
        } catch {
            state = .failed
            finish()
            throw error
        }
    }

    /// The next row, or `nil` at the end.
    public func next() throws -> Row? {
        try step() ? Row(statement: statement, layout: layout) : nil
    }

    /// Calls `body` with every remaining row.
    public func forEach(_ body: (Row) throws -> Void) throws {
        while let row = try next() {
            try body(row)
        }
    }

    /// Every remaining row.
    public func allRows() throws -> [Row] {
        var rows: [Row] = []
        while let row = try next() {
            rows.append(row)
        }
        return rows
    }

    /// Stops iterating and releases the statement; closing twice does nothing.
    public func close() {
        if state != .closed {
            state = .closed
            finish()
        }
    }

    private func finish() {
        if statement.isCheckedOut {
            statement.reset()
            statement.isCheckedOut = false
        }
    }
}

@available(*, unavailable, message: "A RowCursor is confined to its database's thread")
extension RowCursor: Sendable {}
