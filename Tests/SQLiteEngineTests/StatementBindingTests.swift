import Foundation
import Testing

@testable import SQLiteEngine

/// Strict binding of positional and named arguments.
@Suite struct StatementBindingTests {
    let db: Database

    init() throws {
        db = try makeMemoryDatabase()
    }

    /// Checks that positional values bind in order, for "?" and "?NNN".
    @Test func bind_positionalValuesInOrder() throws {
        #expect(try db.string(sql: "SELECT ? || ?", arguments: ["a", "b"]) == "ab")
        #expect(try db.string(sql: "SELECT ?2 || ?1", arguments: ["a", "b"]) == "ba")
    }

    /// Checks that too few or too many positional values are rejected with the counts in the message.
    @Test func bind_rejectsWrongPositionalCount() throws {
        let tooMany = try #require(databaseError { _ = try db.scalar(sql: "SELECT ?, ?", arguments: [1, 2, 3]) })
        #expect(tooMany.kind == .binding)
        #expect(tooMany.message == "statement expects 2 positional values, got 3")
        let tooFew = try #require(databaseError { _ = try db.scalar(sql: "SELECT ?, ?", arguments: [1]) })
        #expect(tooFew.message == "statement expects 2 positional values, got 1")
        let none = try #require(databaseError { _ = try db.scalar(sql: "SELECT 1", arguments: [1]) })
        #expect(none.message == "statement expects 0 positional values, got 1")
    }

    /// Checks that named values bind with or without the ":", "@" or "$" prefix.
    @Test func bind_namedKeysWithOrWithoutPrefix() throws {
        #expect(try db.int64(sql: "SELECT :id", arguments: ["id": 7]) == 7)
        #expect(try db.int64(sql: "SELECT :id", arguments: [":id": 7]) == 7)
        #expect(try db.int64(sql: "SELECT @id", arguments: ["id": 8]) == 8)
        #expect(try db.int64(sql: "SELECT @id", arguments: ["@id": 8]) == 8)
        #expect(try db.int64(sql: "SELECT $id", arguments: ["id": 9]) == 9)
        #expect(try db.int64(sql: "SELECT $id", arguments: ["$id": 9]) == 9)
        #expect(try db.int64(sql: "SELECT :a + :a * :b", arguments: ["a": 2, "b": 10]) == 22)
    }

    /// Checks that named binding puts each value on its own parameter whatever the keys' form and the dictionary's
    /// order, on one statement bound again and again (the fast path remembers where keys went last time).
    @Test func bind_namedValuesLandOnTheirParametersAcrossCalls() throws {
        let statement = try db.makeStatement(sql: "SELECT :a, @b, $c, :d")
        let keys = [["a", "b", "c", "d"], [":a", "@b", "$c", ":d"], ["d", "$c", "a", "@b"]]
        for round in 0..<30 {
            var values: [String: DatabaseValue] = [:]
            for key in keys[round % keys.count] {
                let bare = key.first!.isLetter ? key : String(key.dropFirst())
                values[key] = .integer(Int64(round * 10 + Int(bare.unicodeScalars.first!.value - 96)))
            }
            try statement.bind(.named(values))
            #expect(try statement.step())
            #expect((0..<4).map { statement.int64(at: $0) } == (1...4).map { Int64(round * 10 + $0) })
            statement.reset()
        }
    }

    /// Checks that a key given with and without its prefix is rejected even when the count of keys looks right.
    @Test func bind_rejectsNameGivenTwice() throws {
        let error = try #require(
            databaseError { _ = try db.scalar(sql: "SELECT :a, :b", arguments: [":a": 1, "a": 2]) }
        )
        #expect(error.kind == .binding)
        #expect(error.message == "parameter :a is given twice (as ':a' and 'a')")
        let twice = try #require(
            databaseError { _ = try db.scalar(sql: "SELECT :a, :b", arguments: [":a": 1, "a": 2, "b": 3]) }
        )
        #expect(twice.message == "parameter :a is given twice (as ':a' and 'a')")
    }

    /// Checks that an unknown key is rejected when there are as many keys as parameters.
    @Test func bind_rejectsUnknownNameWithRightCount() throws {
        let statement = try db.makeStatement(sql: "SELECT :a, :b")
        try statement.bind(["a": 1, "b": 2])  // prime the remembered key order
        let error = try #require(databaseError { try statement.bind(["a": 1, "c": 2]) })
        #expect(error.kind == .binding)
        #expect(error.message == "missing value for parameter :b")
    }

    /// Checks that one bare key binds every parameter spelled with it (":a" and "@a" are two parameters).
    @Test func bind_bareKeyBindsEveryPrefix() throws {
        let row = try #require(try db.fetchOne(sql: "SELECT :a, @a", arguments: ["a": 5]))
        #expect(row.int64(at: 0) == 5)
        #expect(row.int64(at: 1) == 5)
    }

    /// Checks that a missing named value is rejected, naming the parameter.
    @Test func bind_rejectsMissingName() throws {
        let error = try #require(databaseError { _ = try db.scalar(sql: "SELECT :id, :name", arguments: ["id": 1]) })
        #expect(error.kind == .binding)
        #expect(error.message == "missing value for parameter :name")
        #expect(error.resultCode == .SQLITE_RANGE)
    }

    /// Checks that a key matching no parameter is rejected, naming the key.
    @Test func bind_rejectsUnknownName() throws {
        let error = try #require(
            databaseError { _ = try db.scalar(sql: "SELECT :id", arguments: ["id": 1, "foo": 2]) }
        )
        #expect(error.kind == .binding)
        #expect(error.message == "unknown parameter name 'foo'")
        let wrongPrefix = try #require(databaseError { _ = try db.scalar(sql: "SELECT :id", arguments: ["@id": 1]) })
        #expect(wrongPrefix.message.contains("'@id'") || wrongPrefix.message.contains(":id"))
    }

    /// Checks that named values for positional parameters are rejected, and the reverse.
    @Test func bind_rejectsMixingPositionalAndNamed() throws {
        let named = try #require(databaseError { _ = try db.scalar(sql: "SELECT ?", arguments: ["id": 1]) })
        #expect(named.kind == .binding)
        #expect(named.message.hasPrefix("named values given for positional parameters"))
        let numbered = try #require(databaseError { _ = try db.scalar(sql: "SELECT ?1", arguments: ["1": 1]) })
        #expect(numbered.message.hasPrefix("named values given for positional parameters"))
        let positional = try #require(databaseError { _ = try db.scalar(sql: "SELECT :id", arguments: [1]) })
        #expect(positional.kind == .binding)
        #expect(positional.message.hasPrefix("positional values given for named parameters"))
        let empty = try #require(databaseError { _ = try db.scalar(sql: "SELECT :id") })
        #expect(empty.message == "missing value for parameter :id")
    }

    /// Checks that a binding error message never contains the bound values.
    @Test func bind_errorNeverContainsValues() throws {
        let error = try #require(
            databaseError { _ = try db.scalar(sql: "SELECT ?", arguments: [.text("hunter2"), .text("s3cret")]) }
        )
        #expect(error.description.contains("hunter2") == false)
        #expect(error.description.contains("s3cret") == false)
    }

    /// Checks the convenience initializers from Swift values, with nil as NULL.
    @Test func arguments_fromSwiftValues() throws {
        let positional = StatementArguments([1, "two", nil, 2.5])
        #expect(positional == .positional([.integer(1), .text("two"), .null, .real(2.5)]))
        let named = StatementArguments(["a": 1, "b": nil])
        #expect(named == .named(["a": .integer(1), "b": .null]))
        let row = try #require(try db.fetchOne(sql: "SELECT :a, :b", arguments: named))
        #expect(row.values == [.integer(1), .null])
    }

    /// Checks parameter metadata of a statement.
    @Test func statement_reportsParameters() throws {
        let statement = try db.makeStatement(sql: "SELECT ?, :name, @other, $x, ?7")
        #expect(statement.parameterCount == 7)
        #expect(statement.parameterNames == [nil, ":name", "@other", "$x", nil, nil, "?7"])
    }

    /// Checks that rebinding replaces earlier values and that binding resets a statement in progress.
    @Test func bind_resetsAndReplaces() throws {
        let statement = try db.makeStatement(sql: "SELECT ? UNION ALL SELECT 2")
        try statement.bind([1])
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 1)
        try statement.bind([5])
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 5)
        statement.reset()
    }

    /// Checks that binding again after a finished run, and after a failed one, runs the statement afresh with the
    /// new values, with `changes` and `insertedRowID` describing each run.
    @Test func bind_afterDoneOrFailureRunsAfresh() throws {
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER UNIQUE)")
        let insert = try db.makeStatement(sql: "INSERT INTO t(x) VALUES (?)")
        try insert.run([10])
        #expect(insert.insertedRowID == 1)
        try insert.run([20])
        #expect(insert.insertedRowID == 2)
        #expect(insert.changes == 1)
        #expect(throws: DatabaseError.self) { try insert.run([20]) }
        #expect(insert.insertedRowID == nil)
        #expect(insert.changes == 0)
        try insert.run([30])
        #expect(insert.insertedRowID == 3)
        #expect(try db.string(sql: "SELECT group_concat(x) FROM t") == "10,20,30")
    }
}
