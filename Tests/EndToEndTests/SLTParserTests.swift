import Foundation
import Testing

@Suite struct SLTParserTests {
    /// A script with every record kind parses into the expected records, line numbers included.
    @Test func parse_readsEveryRecordKind() throws {
        let script = """
            hash-threshold 8

            statement ok
            CREATE TABLE t1(a INTEGER, b TEXT)

            # a comment between records
            statement error
            INSERT INTO nowhere VALUES(1);
            INSERT INTO t1 VALUES(2, 'x')

            skipif mysql # trailing words are ignored
            onlyif sqlite
            query IT rowsort label-7
            SELECT a, b
            # comments inside a record are skipped too
              FROM t1
            ----
            2
            x

            query R
            SELECT 1.5
            ----
            30 values hashing to 3c13dee48d9356ae19af2515e05e6b54

            query I nosort
            SELECT 1 WHERE 0

            halt
            """
        let records = try SLTParser.parse(script, fileName: "inline.test")
        try #require(records.count == 7)
        #expect(records[0] == SLTRecord(line: 1, conditions: [], command: .hashThreshold(8)))
        #expect(
            records[1]
                == SLTRecord(
                    line: 3,
                    conditions: [],
                    command: .statement(
                        expectsError: false,
                        sql: "CREATE TABLE t1(a INTEGER, b TEXT)"
                    )
                )
        )
        #expect(
            records[2].command
                == .statement(
                    expectsError: true,
                    sql: "INSERT INTO nowhere VALUES(1);\nINSERT INTO t1 VALUES(2, 'x')"
                )
        )
        #expect(records[2].line == 7)
        #expect(records[3].line == 13)
        #expect(records[3].conditions == [.skipIf(engine: "mysql"), .onlyIf(engine: "sqlite")])
        #expect(
            records[3].command
                == .query(
                    SLTQuery(
                        columnTypes: [.integer, .text],
                        sortMode: .rowsort,
                        label: "label-7",
                        sql: "SELECT a, b\n  FROM t1",
                        expectedLines: ["2", "x"]
                    )
                )
        )
        guard case .query(let hashed) = records[4].command else {
            Issue.record("record 4 is not a query")
            return
        }
        #expect(hashed.sortMode == .nosort)
        #expect(hashed.label == nil)
        #expect(hashed.expectedHash?.count == 30)
        #expect(hashed.expectedHash?.md5 == "3c13dee48d9356ae19af2515e05e6b54")
        guard case .query(let empty) = records[5].command else {
            Issue.record("record 5 is not a query")
            return
        }
        #expect(empty.sql == "SELECT 1 WHERE 0")
        #expect(empty.expectedLines.isEmpty)
        #expect(records.last?.command == .halt)
    }

    /// A query without a `----` line expects no rows; CRLF line endings and whitespace-only lines are handled.
    @Test func parse_handlesMissingResultsAndCRLF() throws {
        let records = try SLTParser.parse("query I nosort\r\nSELECT 1 WHERE 0\r\n   \r\nstatement ok\r\nSELECT 1\r\n")
        try #require(records.count == 2)
        guard case .query(let query) = records[0].command else {
            Issue.record("not a query")
            return
        }
        #expect(query.sql == "SELECT 1 WHERE 0")
        #expect(query.expectedLines.isEmpty)
        #expect(records[1].command == .statement(expectsError: false, sql: "SELECT 1"))
        #expect(records[1].line == 4)
    }

    /// Conditions select records by engine name, case-insensitively.
    @Test func conditions_selectByEngine() {
        let record = SLTRecord(line: 1, conditions: [.onlyIf(engine: "SQLite")], command: .halt)
        #expect(record.applies(toEngine: "sqlite"))
        #expect(!record.applies(toEngine: "mysql"))
        let skipped = SLTRecord(line: 1, conditions: [.skipIf(engine: "sqlite")], command: .halt)
        #expect(!skipped.applies(toEngine: "sqlite"))
        #expect(skipped.applies(toEngine: "postgresql"))
    }

    /// Malformed records are reported with their file and line.
    @Test(arguments: [
        ("statement maybe\nSELECT 1", 1, "statement argument"),
        ("query X\nSELECT 1", 1, "unknown type character"),
        ("query I sideways\nSELECT 1", 1, "unknown sort method"),
        ("\n\nfrobnicate", 3, "unknown record type"),
        ("statement ok", 1, "statement without SQL"),
        ("query I\n----\n1", 1, "query without SQL"),
        ("onlyif sqlite", 1, "condition not followed"),
        ("hash-threshold many", 1, "hash-threshold"),
    ])
    func parse_reportsMalformedRecords(script: String, line: Int, reason: String) {
        do {
            _ = try SLTParser.parse(script, fileName: "bad.test")
            Issue.record("no error for \(script)")
        } catch let error as SLTParser.ParseError {
            #expect(error.line == line)
            #expect(error.file == "bad.test")
            #expect(error.reason.contains(reason), "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// Every file of the conformance corpus parses, losing no record: each command line in the file (`statement`,
    /// `query`, `hash-threshold`, `halt`) becomes exactly one record.
    @Test(
        .enabled(if: TestPaths.hasSQLLogicTestCorpus, "the sqllogictest corpus (../shared/conformance) is absent"),
        arguments: TestPaths.sqlLogicTestFiles
    )
    func parse_acceptsEveryCorpusFile(file: URL) throws {
        let records = try SLTParser.parse(contentsOf: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        // Split bytes, not Characters: some corpus files use CRLF, and "\r\n" is a single Character.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let commandLines = lines.filter { line in
            ["statement ", "query ", "hash-threshold ", "halt"].contains(where: { line.hasPrefix($0) })
        }
        #expect(records.count > 0)
        #expect(records.count == commandLines.count)
        let statements = records.filter { if case .statement = $0.command { true } else { false } }
        #expect(statements.count > 0)
        for record in records {
            if case .query(let query) = record.command {
                #expect(!query.sql.isEmpty)
                #expect(!query.columnTypes.isEmpty)
                #expect(!query.expectedLines.contains("----"))
            }
        }
    }
}
