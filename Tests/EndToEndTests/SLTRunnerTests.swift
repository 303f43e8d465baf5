import Foundation
import Testing

/// The runner checked against a stand-in server backed by Python's sqlite3 module (the system libsqlite3), so its
/// printing, sorting, hashing and policy handling are exercised on real SQLite results.
@Suite(.enabled(if: SQLiteStandInServer.isAvailable, "needs /usr/bin/python3 with the sqlite3 module"))
struct SLTRunnerTests {
    /// A script exercising every record kind passes, with skips counted by reason.
    @Test func run_passesCorrectScriptAndCountsSkips() throws {
        let script = """
            statement ok
            CREATE TABLE t1(a INTEGER, b TEXT, c REAL)

            statement ok
            INSERT INTO t1 VALUES(1, 'one', 1.5); INSERT INTO t1 VALUES(2, '', NULL);
            INSERT INTO t1 VALUES(3, 'tab\there', -0.25)

            statement error
            INSERT INTO nosuchtable VALUES(1)

            query ITR rowsort
            SELECT a, b, c FROM t1 WHERE a > 1 ORDER BY a DESC
            ----
            2
            (empty)
            NULL
            3
            tab@here
            -0.250

            query I valuesort label-a
            SELECT a FROM t1 ORDER BY a DESC
            ----
            1
            2
            3

            query I nosort label-a
            SELECT a FROM t1 ORDER BY a
            ----
            1
            2
            3

            hash-threshold 1

            query T nosort
            SELECT b FROM t1 WHERE b <> '' ORDER BY a
            ----
            2 values hashing to \(MD5.hex("one\ntab@here\n"))

            skipif sqlite
            statement ok
            THIS IS NOT SQL

            onlyif mysql
            query I nosort
            SELECT 'not for sqlite'
            ----
            1

            statement ok
            CREATE TEMP VIEW v2 AS SELECT a FROM t1

            query I nosort
            SELECT count(*) FROM v2
            ----
            3

            statement ok
            DROP VIEW v2

            query I nosort
            SELECT count(*) FROM t1
            ----
            3

            halt

            statement ok
            THIS IS NEVER RUN
            """
        let report = try runStandIn(script)
        #expect(report.failed == 0, "\(report)")
        #expect(report.passed == 8)
        #expect(report.skippedByCondition == 2)
        #expect(report.skippedByPolicy == 3)
        #expect(report.stoppedEarly.count == 1)
    }

    /// Wrong expectations fail with the record's line, the SQL, and expected versus got.
    @Test func run_reportsFailuresWithLineAndValues() throws {
        let script = """
            statement ok
            CREATE TABLE t(x)

            statement error
            INSERT INTO t VALUES(1)

            statement ok
            INSERT INTO nosuchtable VALUES(1)

            query I nosort
            SELECT 41 + 1
            ----
            43

            query II nosort
            SELECT 1
            ----
            1

            query I nosort
            SELECT x FROM t
            ----
            3 values hashing to 00000000000000000000000000000000

            query I nosort one
            SELECT 1
            ----
            1

            query I nosort one
            SELECT 2
            ----
            2
            """
        let report = try runStandIn(script)
        #expect(report.passed == 2)
        #expect(report.failed == 6)
        let lines = report.failures.map(\.line)
        #expect(lines == [4, 7, 10, 15, 20, 30])
        let wrong = try #require(report.failures.first(where: { $0.line == 10 }))
        #expect(wrong.file == "inline.test")
        #expect(wrong.sql == "SELECT 41 + 1")
        #expect(wrong.expected?.contains("43") == true)
        #expect(wrong.got?.contains("42") == true)
        #expect(report.failures.last?.reason.contains("labeled result [one]") == true)
        #expect(report.description.contains("inline.test:10: wrong result"))
    }

    /// A server that goes away stops the file with a failure instead of hanging or failing every later record.
    @Test func run_stopsFileWhenServerDies() throws {
        let directory = try TemporaryDirectory()
        let server = try SQLiteStandInServer.start(directory: directory.url)
        let client = try server.makeClient(timeoutSeconds: 5)
        server.kill()
        let records = try SLTParser.parse("statement ok\nCREATE TABLE t(x)\n\nquery I\nSELECT 1\n----\n1\n")
        let report = SLTRunner(client: client).run(records: records, fileName: "dead.test")
        #expect(report.failed == 1)
        #expect(report.passed == 0)
        #expect(report.stoppedEarly.count == 1)
    }

    /// Every corpus file passes against real SQLite: the runner prints, sorts and hashes as the corpus expects.
    @Test(
        .enabled(if: TestPaths.hasSQLLogicTestCorpus, "the sqllogictest corpus (../shared/conformance) is absent"),
        arguments: TestPaths.sqlLogicTestFiles
    )
    func run_passesCorpusFileAgainstSQLite(file: URL) throws {
        let directory = try TemporaryDirectory()
        let server = try SQLiteStandInServer.start(directory: directory.url)
        defer { server.kill() }
        let runner = try SLTRunner(baseURL: server.baseURL)
        let report = try runner.run(fileAt: file, displayName: TestPaths.relativeName(of: file))
        #expect(report.failed == 0, "\(TestPaths.relativeName(of: file)): \(report)")
        #expect(report.passed > 0)
    }

    private func runStandIn(_ script: String) throws -> SLTRunReport {
        let directory = try TemporaryDirectory()
        let server = try SQLiteStandInServer.start(directory: directory.url)
        defer { server.kill() }
        let runner = SLTRunner(client: try server.makeClient())
        return runner.run(records: try SLTParser.parse(script, fileName: "inline.test"), fileName: "inline.test")
    }
}
