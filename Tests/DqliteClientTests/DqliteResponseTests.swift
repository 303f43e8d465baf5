import LoopbackTestSupport
import Testing

@testable import DqliteClient

/// Responses decode from the exact bytes of the specification, round-trip, and reject every malformed message
/// with a typed error (never a crash, never an allocation sized by an unchecked length).
@Suite struct DqliteResponseTests {
    /// Checks FAILURE: code word, then the message padded to a word.
    @Test func failure_fromSpecBytes() throws {
        let message: [UInt8] =
            [4, 0, 0, 0, 0, 0, 0, 0]
            + [1, 0, 0, 0, 0, 0, 0, 0]
            + Array("no such table: t".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(try DqliteResponse.decode(message: message) == .failure(code: 1, message: "no such table: t"))
    }

    /// Checks the FAILURE dqlite 1.11 sends when a query fails at a step: the column header it had begun, then the
    /// failure (the layout seen from dqlite 1.11 for `SELECT abs(-9223372036854775808)`); anything else left over is
    /// still a protocol violation.
    @Test func failure_afterColumnHeader() throws {
        let column = Array("abs(-9223372036854775808)".utf8) + [0, 0, 0, 0, 0, 0, 0]
        let failure = [1, 0, 0, 0, 0, 0, 0, 0] + Array("integer overflow".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        let body = [1, 0, 0, 0, 0, 0, 0, 0] + column + failure
        #expect(try DqliteResponse.decode(type: 0, body: body) == .failure(code: 1, message: "integer overflow"))

        // The layout for `SELECT 7 AS v UNION ALL SELECT abs(…)`: the header, the row stepped, then the failure.
        let row: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0] + [7, 0, 0, 0, 0, 0, 0, 0]
        let afterRow = [1, 0, 0, 0, 0, 0, 0, 0] + Array("v".utf8) + [0, 0, 0, 0, 0, 0, 0] + row + failure
        #expect(try DqliteResponse.decode(type: 0, body: afterRow) == .failure(code: 1, message: "integer overflow"))

        for malformed in [
            body + [0, 0, 0, 0, 0, 0, 0, 0], [9, 0, 0, 0, 0, 0, 0, 0] + column + failure, column + failure,
        ] {
            #expect(throws: DqliteError.self) { try DqliteResponse.decode(type: 0, body: malformed) }
        }
    }

    /// Checks a FAILURE appended to a begun ROWS body (dqlite 1.11, a QUERY failing after its first step): the
    /// failure is the body's last words, after the column names and any rows; other bytes left over still fail.
    @Test func failure_afterPartialRows() throws {
        let failure: [UInt8] =
            [8, 0, 0, 0, 0, 0, 0, 0] + Array("attempt to write a readonly database".utf8) + [0, 0, 0, 0]
        let columns: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0] + Array("v".utf8) + [0, 0, 0, 0, 0, 0, 0]
        let row: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0] + [7, 0, 0, 0, 0, 0, 0, 0]
        let expected = DqliteResponse.failure(code: 8, message: "attempt to write a readonly database")
        #expect(try DqliteResponse.decode(type: 0, body: columns + failure) == expected)
        #expect(try DqliteResponse.decode(type: 0, body: columns + row + failure) == expected)
        #expect(throws: DqliteError.self) {
            try DqliteResponse.decode(type: 0, body: failure + [1, 2, 3, 4, 5, 6, 7, 8])
        }
    }

    /// A long ROWS body with a FAILURE after it (4 MiB of rows) is decoded without copying the rest of the body
    /// for each word it tries (that cost time quadratic in the body's length: hours for a large message).
    @Test(.timeLimit(.minutes(1))) func failure_afterManyRows_decodesInLinearTime() throws {
        let failure: [UInt8] = [8, 0, 0, 0, 0, 0, 0, 0] + Array("disk I/O error".utf8) + [0, 0]
        let columns: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0] + Array("v".utf8) + [0, 0, 0, 0, 0, 0, 0]
        let row: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0] + [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48]
        var body = columns
        for _ in 0..<(4 << 20) / 16 { body += row }
        body += failure
        #expect(try DqliteResponse.decode(type: 0, body: body) == .failure(code: 8, message: "disk I/O error"))
    }

    /// Checks SERVER, WELCOME, DB, STMT, RESULT and EMPTY against their layouts.
    @Test func fixedResponses_fromSpecBytes() throws {
        #expect(
            try DqliteResponse.decode(
                type: 1,
                body: [1, 0, 0, 0, 0, 0, 0, 0] + Array("1.2.3.4:5".utf8) + [0, 0, 0, 0, 0, 0, 0]
            )
                == .server(id: 1, address: "1.2.3.4:5")
        )
        #expect(
            try DqliteResponse.decode(type: 2, body: [0x98, 0x3a, 0, 0, 0, 0, 0, 0])
                == .welcome(heartbeatTimeout: 15000)
        )
        #expect(try DqliteResponse.decode(type: 4, body: [0, 0, 0, 0, 0, 0, 0, 0]) == .database(id: 0))
        #expect(
            try DqliteResponse.decode(type: 5, body: [0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0])
                == .statement(database: 0, id: 3, parameterCount: 2)
        )
        #expect(
            try DqliteResponse.decode(
                type: 6,
                body: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0]
            )
                == .result(DqliteExecResult(lastInsertID: -1, rowsAffected: 1))
        )
        #expect(try DqliteResponse.decode(type: 8, body: [0, 0, 0, 0, 0, 0, 0, 0]) == .empty)
    }

    /// Checks SERVERS (CLUSTER format 1): count, then id, address and role of each node.
    @Test func servers_fromSpecBytes() throws {
        let body: [UInt8] =
            [2, 0, 0, 0, 0, 0, 0, 0]
            + [1, 0, 0, 0, 0, 0, 0, 0] + Array("a:1".utf8) + [0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [2, 0, 0, 0, 0, 0, 0, 0] + Array("b:2".utf8) + [0, 0, 0, 0, 0] + [2, 0, 0, 0, 0, 0, 0, 0]
        #expect(
            try DqliteResponse.decode(type: 3, body: body)
                == .servers([
                    DqliteNodeInfo(id: 1, address: "a:1", role: .voter),
                    DqliteNodeInfo(id: 2, address: "b:2", role: .spare),
                ])
        )
        var badRole = body
        badRole[body.count - 8] = 7
        #expect(responseError(type: 3, body: badRole)?.kind == .protocolViolation)
    }

    /// Checks ROWS: column count, names, a row header with one 4-bit type per column (first in the low nibble),
    /// the values, then the end marker; 0xee… marks a part with a sequel.
    @Test func rows_fromSpecBytes() throws {
        let body: [UInt8] =
            [2, 0, 0, 0, 0, 0, 0, 0]
            + [0x61, 0, 0, 0, 0, 0, 0, 0]
            + [0x62, 0, 0, 0, 0, 0, 0, 0]
            + [0x31, 0, 0, 0, 0, 0, 0, 0]
            + [7, 0, 0, 0, 0, 0, 0, 0]
            + [0x78, 0, 0, 0, 0, 0, 0, 0]
            + [0x45, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 0]
            + [2, 0, 0, 0, 0, 0, 0, 0] + [0xab, 0xcd, 0, 0, 0, 0, 0, 0]
        let done = body + [UInt8](repeating: 0xff, count: 8)
        #expect(
            try DqliteResponse.decode(type: 7, body: done)
                == .rows(
                    DqliteRows(
                        columns: ["a", "b"],
                        rows: [[.integer(7), .text("x")], [.null, .blob([0xab, 0xcd])]]
                    )
                )
        )
        let part = body + [UInt8](repeating: 0xee, count: 8)
        guard case .rows(let rows) = try DqliteResponse.decode(type: 7, body: part) else {
            Issue.record("not ROWS")
            return
        }
        #expect(rows.hasMore)
        #expect(rows.rows.count == 2)
        var badMarker = done
        badMarker[badMarker.count - 1] = 0xfe
        #expect(responseError(type: 7, body: badMarker)?.kind == .protocolViolation)
        #expect(responseError(type: 7, body: body)?.kind == .protocolViolation)
    }

    /// Checks that a row of 17 columns takes a two-word header and the special types decode as such.
    @Test func rows_specialTypesAndWideHeader() throws {
        let values: [DqliteValue] =
            [.unixTime(-5), .iso8601("2024-01-02 03:04:05"), .boolean(true), .boolean(false)]
            + [DqliteValue](repeating: .integer(1), count: 13)
        let rows = DqliteRows(columns: (1...17).map { "c\($0)" }, rows: [values])
        let message = try DqliteResponse.rows(rows).encoded()
        #expect(try DqliteResponse.decode(message: message) == .rows(rows))
        let rowHeader = 8 + 8 + 17 * 8
        #expect(
            Array(message[rowHeader..<rowHeader + 16]) == [0xa9, 0xbb] + [UInt8](repeating: 0x11, count: 6) + [
                1, 0, 0, 0, 0, 0, 0, 0,
            ]
        )
    }

    /// Checks FILES: count, then each file's name, length word and bytes.
    @Test func files_roundTrip() throws {
        let files = DqliteResponse.files([
            DqliteFile(name: "db", bytes: [UInt8](repeating: 7, count: 4096)),
            DqliteFile(name: "db-wal", bytes: []),
        ])
        let message = try files.encoded()
        #expect(message.count == 8 + 8 + (8 + 8 + 4096) + (8 + 8))
        #expect(try DqliteResponse.decode(message: message) == files)
    }

    /// Checks that every response round-trips through its encoding.
    @Test(arguments: DqliteResponseTests.samples)
    func roundTrip(_ response: DqliteResponse) throws {
        #expect(try DqliteResponse.decode(message: try response.encoded()) == response)
    }

    /// Checks that every proper prefix of every sample message, and every sample with a word too many, is a
    /// protocol violation.
    @Test(arguments: DqliteResponseTests.samples)
    func truncatedOrPadded_isProtocolViolation(_ response: DqliteResponse) throws {
        let message = try response.encoded()
        for length in 0..<message.count {
            #expect(throws: DqliteError.self) { try DqliteResponse.decode(message: Array(message.prefix(length))) }
        }
        let body = Array(message.dropFirst(8))
        for length in stride(from: 0, to: body.count, by: 1) where length % 8 == 0 {
            #expect(
                responseError(type: response.typeCode, body: Array(body.prefix(length)))?.kind == .protocolViolation
            )
        }
        #expect(
            responseError(type: response.typeCode, body: body + [0, 0, 0, 0, 0, 0, 0, 0])?.kind == .protocolViolation
        )
    }

    /// Checks that lengths beyond the message or the limits are refused before any allocation.
    @Test func oversizedLengths_areRefused() throws {
        let header = DqliteMessageHeader(words: .max, type: 7).encoded
        #expect(throws: DqliteError.self) { try DqliteResponse.decode(message: header) }
        let tooLarge = try? DqliteResponse.decode(message: header + [UInt8](repeating: 0, count: 8))
        #expect(tooLarge == nil)
        let small = DqliteLimits(maxMessageBytes: 16)
        let big = try DqliteResponse.failure(code: 1, message: String(repeating: "x", count: 40)).encoded()
        do {
            _ = try DqliteResponse.decode(message: big, limits: small)
            Issue.record("a message over the limit was decoded")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        // A blob announcing 2^63 bytes in a 40-byte body.
        let blob: [UInt8] =
            [1, 0, 0, 0, 0, 0, 0, 0] + [0x62, 0, 0, 0, 0, 0, 0, 0] + [4, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 0x80] + [UInt8](repeating: 0xff, count: 8)
        #expect(responseError(type: 7, body: blob)?.kind == .protocolViolation)
        // A column count of 2^60 with nothing after it.
        #expect(
            responseError(type: 7, body: [0, 0, 0, 0, 0, 0, 0, 0x10] + [UInt8](repeating: 0xff, count: 8))?.kind
                == .protocolViolation
        )
        #expect(responseError(type: 3, body: [UInt8](repeating: 0xff, count: 8))?.kind == .protocolViolation)
        #expect(responseError(type: 9, body: [UInt8](repeating: 0xff, count: 16))?.kind == .protocolViolation)
    }

    /// Checks garbled content: unknown response type, unknown value type, text without NUL.
    @Test func garbledContent_isProtocolViolation() throws {
        #expect(responseError(type: 10, body: [UInt8](repeating: 0, count: 16))?.kind == .protocolViolation)
        #expect(responseError(type: 200, body: [UInt8](repeating: 0, count: 8))?.kind == .protocolViolation)
        let unknownType: [UInt8] =
            [1, 0, 0, 0, 0, 0, 0, 0] + [0x61, 0, 0, 0, 0, 0, 0, 0] + [0x06, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xff, count: 8)
        #expect(responseError(type: 7, body: unknownType)?.kind == .protocolViolation)
        #expect(
            responseError(type: 0, body: [1, 0, 0, 0, 0, 0, 0, 0] + Array("abcdefgh".utf8))?.kind == .protocolViolation
        )
    }

    /// Checks that random bytes never crash the decoder: each attempt decodes or throws a DqliteError.
    @Test func randomBytes_neverCrash() {
        var generator = SplitMix64(seed: 15)
        for _ in 0..<20_000 {
            let type = UInt8.random(in: 0...10, using: &generator)
            let words = Int.random(in: 0...6, using: &generator)
            var body = (0..<words * 8).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Small lengths and counts, so that decoding often gets past the first field.
            if !body.isEmpty, Bool.random(using: &generator) {
                body[0] = UInt8.random(in: 0...3, using: &generator)
                for index in 1..<8 { body[index] = 0 }
            }
            _ = try? DqliteResponse.decode(type: type, body: body)
        }
    }

    static let samples: [DqliteResponse] = [
        .failure(code: 2067, message: "UNIQUE constraint failed: t.x"),
        .server(id: 1, address: "127.0.0.1:9001"),
        .server(id: 0, address: ""),
        .welcome(heartbeatTimeout: 15000),
        .servers([DqliteNodeInfo(id: 1, address: "127.0.0.1:9001", role: .voter)]),
        .database(id: 0),
        .statement(database: 0, id: 1, parameterCount: 3),
        .result(DqliteExecResult(lastInsertID: .max, rowsAffected: 5)),
        .rows(
            DqliteRows(columns: ["x"], rows: [[.integer(.min)], [.float(-0.0)], [.text("é\u{1F30D}")]], hasMore: true)
        ),
        .rows(DqliteRows(columns: ["a", "b", "c"], rows: [])),
        .empty,
        .files([DqliteFile(name: "db", bytes: [1, 2, 3]), DqliteFile(name: "db-wal", bytes: [])]),
    ]

    private func responseError(type: UInt8, body: [UInt8]) -> DqliteError? {
        do {
            let response = try DqliteResponse.decode(type: type, body: body)
            Issue.record("decoded \(response) from a malformed body")
            return nil
        } catch {
            return error
        }
    }
}
