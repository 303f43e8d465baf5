internal import CSQLite
import Foundation

extension Statement {
    /// Binds `arguments` to the statement's parameters, strictly, after resetting it.
    ///
    /// Mistakes are errors (``DatabaseError/Kind-swift.enum/binding``, naming the parameter but never a value)
    /// rather than parameters silently left NULL:
    /// - positional values: their number must equal ``parameterCount``, and every parameter must be positional
    ///   (`?` or `?NNN`);
    /// - named values: every parameter must be named (`:x`, `@x`, `$x`), every parameter needs a value, and every
    ///   key must match a parameter. A key may omit the prefix (`"id"` binds `:id`, `@id` or `$id`).
    ///
    /// A zero-length blob binds as a zero-length blob (not NULL); text is bound with its byte length, so embedded
    /// NUL bytes are kept.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/bind_blob.html>
    public func bind(_ arguments: StatementArguments) throws {
        guard isValid else {
            throw DatabaseError.databaseClosed
        }
        if isExecuting || sqlite3_stmt_busy(handle) != 0 {
            reset()
        } else {
            // Already reset: `step()` resets at SQLITE_DONE and on every error, and `reset()` resets, so a statement
            // that is not running needs no second `sqlite3_reset` (which is not free) before the binds.
            columnNameTable = nil
        }
        do {
            switch arguments {
            case .positional(let values):
                try bindPositional(values)
            case .named(let values):
                try bindNamed(values)
            }
        } catch {
            needsEviction = true
            throw error
        }
    }

    private func bindPositional(_ values: [DatabaseValue]) throws {
        if values.count != parameterCount || (parameterCount > 0 && hasNamedParameter) {
            // Decide which mistake it is only on the error path, keeping the common path free of name lookups.
            if let firstNamed = parameterNames.first(where: { Self.isNamed($0) }), let firstNamed {
                if values.isEmpty {
                    throw DatabaseError.binding("missing value for parameter \(firstNamed)", sql: sql)
                }
                throw DatabaseError.binding(
                    "positional values given for named parameters (such as \(firstNamed))",
                    sql: sql
                )
            }
            throw DatabaseError.binding(
                "statement expects \(parameterCount) positional value\(parameterCount == 1 ? "" : "s"), "
                    + "got \(values.count)",
                sql: sql
            )
        }
        var index: Int32 = 1
        for value in values {
            // Integers, the most common value, bind inline: no call, no copy of an enum payload.
            if case .integer(let int) = value {
                let code = sqlite3_bind_int64(handle, index, int)
                if code != SQLITE_OK {
                    throw connection.error(code: code, sql: sql)
                }
            } else {
                try bind(value, at: index)
            }
            index += 1
        }
    }

    private func bindNamed(_ values: [String: DatabaseValue]) throws {
        let table = parameterTable
        let count = table.names.count
        if table.keysAreUnambiguous, values.count == count, count <= 64 {
            // Fast path, hashing nothing: walk the dictionary and find each key's parameter by string comparison,
            // first where the key at the same position went last time. As no key can match two parameters, "as many
            // keys as parameters, each key matched a parameter, no parameter matched twice" means every parameter
            // has exactly one value and no key is unknown. Anything else is left to the strict path below, which
            // finds and reports the first mistake exactly as it always did (binding again is harmless).
            var order = namedKeyOrder
            if order.count != count {
                order = Array(0..<count)
            }
            var orderChanged = false
            var seen: UInt64 = 0
            var position = 0
            for (key, value) in values {
                guard let index = table.index(ofKey: key, hint: order[position]), seen & (1 << index) == 0 else {
                    break
                }
                seen |= 1 << index
                if order[position] != index {
                    order[position] = index
                    orderChanged = true
                }
                try bind(value, at: Int32(index + 1))
                position += 1
            }
            if orderChanged {
                namedKeyOrder = order
            }
            if position == count {
                return
            }
        }
        try bindNamedStrictly(values, table: table)
    }

    private func bindNamedStrictly(_ values: [String: DatabaseValue], table: ParameterTable) throws {
        for (offset, name) in table.names.enumerated() {
            guard let name, Self.isNamed(name) else {
                // Gaps left by "?NNN" are unnamed too; a statement with only such parameters is positional.
                throw DatabaseError.binding(
                    "named values given for positional parameters (parameter \(name ?? "?\(offset + 1)"))",
                    sql: sql
                )
            }
            let bare = table.bareNames[offset]
            let value: DatabaseValue
            if let exact = values[name] {
                value = exact
                if values[bare] != nil {
                    throw DatabaseError.binding(
                        "parameter \(name) is given twice (as '\(name)' and '\(bare)')",
                        sql: sql
                    )
                }
            } else if let byBareName = values[bare] {
                value = byBareName
            } else {
                throw DatabaseError.binding("missing value for parameter \(name)", sql: sql)
            }
            try bind(value, at: Int32(offset + 1))
        }
        if values.count > 0 {
            if let unknown = values.keys.sorted().first(where: { !table.acceptedKeys.contains($0) }) {
                throw DatabaseError.binding("unknown parameter name '\(unknown)'", sql: sql)
            }
        }
    }

    static func isNamed(_ name: String?) -> Bool {
        guard let first = name?.utf8.first else { return false }
        return first != UInt8(ascii: "?")
    }

    /// Binds one value to the parameter at `index` (1-based, as in SQLite), without the strict checks of
    /// ``bind(_:)`` and without resetting; for hot loops that bind parameters one by one after ``reset()``.
    public func bind(_ value: DatabaseValue, at index: Int) throws {
        guard isValid else {
            throw DatabaseError.databaseClosed
        }
        do {
            try bind(value, at: Int32(index))
        } catch {
            needsEviction = true
            throw error
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let int):
            code = sqlite3_bind_int64(handle, index, int)
        case .real(let double):
            code = sqlite3_bind_double(handle, index, double)
        case .text(var text):
            code = text.withUTF8 { bytes in
                // An empty buffer may have a nil base address, and a NULL pointer would bind NULL.
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_text64(handle, index, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(
                        handle,
                        index,
                        chars,
                        sqlite3_uint64(bytes.count),
                        csqlite_transient(),
                        UInt8(SQLITE_UTF8)
                    )
                }
            }
        case .blob(let data):
            if data.isEmpty {
                // sqlite3_bind_blob with a NULL pointer binds NULL; a zero-length zeroblob is a real empty BLOB.
                code = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(
                        handle,
                        index,
                        bytes.baseAddress,
                        sqlite3_uint64(bytes.count),
                        csqlite_transient()
                    )
                }
            }
        }
        if code != SQLITE_OK {
            throw connection.error(code: code, sql: sql)
        }
    }
}
