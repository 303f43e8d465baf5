import Testing

@testable import DqliteClient

/// Requests encode to the exact bytes of the wire protocol's specification (little-endian words, NUL-terminated
/// text padded to 8 bytes, parameter tuples with a count byte and one type byte per value).
@Suite struct DqliteRequestTests {
    /// Checks the handshake word and that LEADER is a header announcing one word of type 0, then a zero word.
    @Test func leader_isOneZeroWord() throws {
        var handshake = WireWriter()
        handshake.writeUInt64(DqliteConnection.protocolVersion)
        #expect(handshake.bytes == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(try DqliteRequest.leader.encoded() == [1, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
    }

    /// Checks OPEN: the name padded to a word, the flags word, then the (empty) VFS name padded to a word.
    @Test func open_padsTextToWords() throws {
        let bytes = try DqliteRequest.open(name: "test", flags: 6, vfs: "").encoded()
        #expect(
            bytes == [3, 0, 0, 0, 3, 0, 0, 0]
                + [0x74, 0x65, 0x73, 0x74, 0, 0, 0, 0]
                + [6, 0, 0, 0, 0, 0, 0, 0]
                + [0, 0, 0, 0, 0, 0, 0, 0]
        )
    }

    /// Checks that a text of exactly 8 bytes takes two words: its NUL needs a word of its own.
    @Test func text_ofEightBytesTakesTwoWords() throws {
        let bytes = try DqliteRequest.dump(name: "12345678").encoded()
        #expect(bytes == [2, 0, 0, 0, 15, 0, 0, 0] + Array("12345678".utf8) + [UInt8](repeating: 0, count: 8))
    }

    /// Checks EXEC_SQL: database word, SQL text, then the parameter tuple (count, types, padding, values).
    @Test func execSQL_withOneIntegerParameter() throws {
        let bytes = try DqliteRequest.execSQL(database: 0, sql: "SELECT ?", parameters: [.integer(-1)]).encoded()
        #expect(
            bytes == [5, 0, 0, 0, 8, 0, 0, 0]
                + [0, 0, 0, 0, 0, 0, 0, 0]
                + Array("SELECT ?".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
                + [1, 1, 0, 0, 0, 0, 0, 0]
                + [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        )
    }

    /// Checks EXEC: two 32-bit ids in one word, then NULL, TEXT and BLOB parameters each padded to words.
    @Test func exec_withNullTextAndBlob() throws {
        let request = DqliteRequest.exec(
            database: 0,
            statement: 7,
            parameters: [.null, .text("ab"), .blob([9, 0, 8])]
        )
        #expect(
            try request.encoded() == [6, 0, 0, 0, 5, 0, 0, 0]
                + [0, 0, 0, 0, 7, 0, 0, 0]
                + [3, 5, 3, 4, 0, 0, 0, 0]
                + [0, 0, 0, 0, 0, 0, 0, 0]
                + [0x61, 0x62, 0, 0, 0, 0, 0, 0]
                + [3, 0, 0, 0, 0, 0, 0, 0]
                + [9, 0, 8, 0, 0, 0, 0, 0]
        )
    }

    /// Checks that eight parameters need two header words (count byte + 8 type bytes = 9 bytes, padded to 16).
    @Test func parameters_headerGrowsByWords() throws {
        let values = [DqliteValue](repeating: .integer(0), count: 8)
        let bytes = try DqliteRequest.query(database: 0, statement: 1, parameters: values).encoded()
        #expect(bytes.count == 8 + 8 + 16 + 8 * 8)
        #expect(Array(bytes[16..<32]) == [8, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    /// Checks FLOAT, BOOLEAN and ISO8601 parameters: IEEE 754 bits, a 0/1 word, padded text.
    @Test func parameters_floatBooleanISO8601() throws {
        let request = DqliteRequest.exec(
            database: 0,
            statement: 1,
            parameters: [.float(1.5), .boolean(true), .iso8601("2024-01-02")]
        )
        let bytes = try request.encoded()
        #expect(Array(bytes[16..<24]) == [3, 2, 11, 10, 0, 0, 0, 0])
        #expect(Array(bytes[24..<32]) == [0, 0, 0, 0, 0, 0, 0xf8, 0x3f])
        #expect(Array(bytes[32..<40]) == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[40..<56]) == Array("2024-01-02".utf8) + [0, 0, 0, 0, 0, 0])
    }

    /// Checks the membership requests: type codes and their id, address and role words.
    @Test func membershipRequests() throws {
        #expect(
            try DqliteRequest.add(id: 2, address: "1.2.3.4:5").encoded()
                == [3, 0, 0, 0, 12, 0, 0, 0] + [2, 0, 0, 0, 0, 0, 0, 0] + Array("1.2.3.4:5".utf8)
                + [0, 0, 0, 0, 0, 0, 0]
        )
        #expect(
            try DqliteRequest.assign(id: 2, role: .standBy).encoded()
                == [2, 0, 0, 0, 13, 0, 0, 0] + [2, 0, 0, 0, 0, 0, 0, 0] + [1, 0, 0, 0, 0, 0, 0, 0]
        )
        #expect(try DqliteRequest.remove(id: 3).encoded() == [1, 0, 0, 0, 14, 0, 0, 0] + [3, 0, 0, 0, 0, 0, 0, 0])
        #expect(try DqliteRequest.transfer(id: 3).encoded() == [1, 0, 0, 0, 17, 0, 0, 0] + [3, 0, 0, 0, 0, 0, 0, 0])
        #expect(try DqliteRequest.cluster.encoded() == [1, 0, 0, 0, 16, 0, 0, 0] + [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(try DqliteRequest.client(id: 9).encoded() == [1, 0, 0, 0, 1, 0, 0, 0] + [9, 0, 0, 0, 0, 0, 0, 0])
        #expect(
            try DqliteRequest.interrupt(database: 0).encoded() == [1, 0, 0, 0, 10, 0, 0, 0]
                + [UInt8](repeating: 0, count: 8)
        )
        #expect(
            try DqliteRequest.finalize(database: 0, statement: 4).encoded()
                == [1, 0, 0, 0, 7, 0, 0, 0] + [0, 0, 0, 0, 4, 0, 0, 0]
        )
    }

    /// Checks that no parameters means no tuple at all (the server then binds nothing).
    @Test func parameters_noneMeansNoTuple() throws {
        let bytes = try DqliteRequest.exec(database: 0, statement: 2, parameters: []).encoded()
        #expect(bytes == [1, 0, 0, 0, 5, 0, 0, 0] + [0, 0, 0, 0, 2, 0, 0, 0])
    }

    /// Checks the requests that cannot be encoded: the error names the parameter, never its value.
    @Test func invalidArguments_neverShowTheValue() throws {
        let nul = requestError(
            .execSQL(database: 0, sql: "INSERT INTO t VALUES (?)", parameters: [.text("secret\u{0}x")])
        )
        #expect(nul?.kind == .invalidArgument)
        #expect(nul?.sql == "INSERT INTO t VALUES (?)")
        #expect(nul.map { !"\($0)".contains("secret") } == true)
        let tooMany = requestError(.exec(database: 0, statement: 1, parameters: .init(repeating: .null, count: 256)))
        #expect(tooMany?.kind == .invalidArgument)
        let unixTime = requestError(.exec(database: 0, statement: 1, parameters: [.unixTime(1_700_000_000)]))
        #expect(unixTime?.kind == .invalidArgument)
        #expect(unixTime.map { !"\($0)".contains("1700000000") } == true)
        #expect(requestError(.open(name: "a\u{0}b"))?.kind == .invalidArgument)
        #expect(
            try DqliteRequest.exec(database: 0, statement: 1, parameters: .init(repeating: .null, count: 255))
                .encoded().count == 8 + 8 + 256 + 255 * 8
        )
    }

    private func requestError(_ request: DqliteRequest) -> DqliteError? {
        do {
            _ = try request.encoded()
            Issue.record("\(request.name) encoded although it is invalid")
            return nil
        } catch {
            return error
        }
    }
}
