import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// The guards on costly built-in functions: hostile arguments fail at once, others get the built-in's result.
@Suite struct FunctionGuardTests {
    static func query(_ fixture: SecurityFixture, _ sql: String) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sql")
        writer.writeString(sql)
        writer.key("shape")
        writer.writeString("arrays")
        writer.endObject()
        return fixture.send("POST", "/query", json: String(decoding: writer.bytes, as: UTF8.self))
    }

    /// Hostile calls get 400 SQLITE_TOOBIG (no minutes of work), and the connection keeps serving.
    @Test(arguments: [
        "SELECT printf('%.*c', 2000000000, 'x')",
        "SELECT format('%.*c', 2000000000, 'x')",
        "SELECT printf('%.*c', '3e9', 'x')",
        "SELECT printf('%*d', -2000000000, 1)",
        "SELECT printf('%2000000000d', 1)",
        "SELECT trim(printf('%.*c', 100000, 'a'), printf('%.*c', 100000, 'b') || 'a')",
        "SELECT ltrim(printf('%.*c', 100000, 'a'), printf('%.*c', 100000, 'b') || 'a')",
        "SELECT rtrim(printf('%.*c', 100000, 'a'), printf('%.*c', 100000, 'b') || 'a')",
        "SELECT instr(printf('%.*c', 10000000, 'a'), printf('%.*c', 5000000, 'a') || 'b')",
        "SELECT replace(printf('%.*c', 10000000, 'a'), printf('%.*c', 5000000, 'a') || 'b', '')",
        "SELECT length(randomblob(3000000000))",
        "SELECT length(zeroblob(2000000000))",
    ])
    func hostileCall_isTooBig(sql: String) throws {
        let fixture = try SecurityFixture()
        let response = Self.query(fixture, sql)
        #expect(response.status.code == 400)
        #expect(response.errorCode == "SQLITE_TOOBIG", "\(response.bodyText)")
        #expect(Self.query(fixture, "SELECT 1").status.code == 200)
    }

    /// Ordinary calls give the built-ins' results.
    @Test func ordinaryCalls_keepBuiltinResults() throws {
        let fixture = try SecurityFixture()
        let sql = """
            SELECT printf('%.*c|%5s|%-4d|%.2f|%q', 3, 'x', 'ab', 7, 3.14159, 'it''s'), format('%d%%', 5), \
            trim('xxhixx', 'x'), ltrim('  a '), rtrim('ab--', '-'), instr('hello', 'll'), instr(x'0102', x'02'), \
            replace('a-b-c', '-', '+'), printf('%.*s', 2000000000, 'short'), printf(NULL), instr(NULL, 'a')
            """
        let response = Self.query(fixture, sql)
        #expect(response.status.code == 200, "\(response.bodyText)")
        #expect(
            response.bodyText.contains(
                #"[["xxx|   ab|7   |3.14|it''s","5%","hi","a ","ab",3,2,"a+b+c","short",null,null]]"#
            ),
            "\(response.bodyText)"
        )
    }

    /// Views and triggers may use the guarded functions although the schema is not trusted (they are innocuous).
    @Test func guardedFunctions_workInViews() throws {
        let fixture = try SecurityFixture()
        let create = fixture.send(
            "POST",
            "/update",
            json:
                #"{"sql": "CREATE VIEW w AS SELECT printf('%03d', id) AS p, replace(v, 'a', 'A') AS r, trim(v, 'b') AS s, instr(v, 'a') AS i FROM t"}"#
        )
        #expect(create.status.code == 200, "\(create.bodyText)")
        let response = Self.query(fixture, "SELECT p, r, s, i FROM w ORDER BY p")
        #expect(response.bodyText.contains(#"[["001","A","a",1],["002","b","",0]]"#), "\(response.bodyText)")
    }

    /// A LIKE or GLOB pattern above the limit fails at once (SQLite: "LIKE or GLOB pattern too complex").
    @Test func longLikePattern_isRefused() throws {
        let fixture = try SecurityFixture()
        let pattern = String(repeating: "a", count: 101)
        for sql in ["SELECT 'a' LIKE '%\(pattern)'", "SELECT 'a' GLOB '*\(pattern)'"] {
            let response = Self.query(fixture, sql)
            #expect(response.status.code == 400)
            #expect(response.errorCode == "SQLITE_ERROR")
            #expect(response.bodyText.contains("pattern too complex"))
        }
        #expect(Self.query(fixture, "SELECT 'abc' LIKE '%\(String(repeating: "_", count: 98))'").status.code == 200)
    }

    /// The format reader finds widths and precisions as SQLite does, `*` taken from the arguments in order.
    @Test func printfFormat_readsConversions() {
        let arguments: [DatabaseValue] = [.integer(5), .integer(-7), .text("x"), .text("12abc"), .real(2.5)]
        let conversions = PrintfFormat.conversions(
            in: "a%%b%*.*s%n%-08.3lld%.*c%!,5.2f%",
            arguments: arguments[...]
        )
        #expect(
            conversions == [
                PrintfFormat.Conversion(type: "s", width: 5, precision: 7),
                PrintfFormat.Conversion(type: "d", width: 8, precision: 3),
                PrintfFormat.Conversion(type: "c", width: 0, precision: 2),
                PrintfFormat.Conversion(type: "f", width: 5, precision: 2),
            ]
        )
        #expect(PrintfFormat.conversions(in: "%99999999999999999999999c", arguments: []).first?.width == .max)
        #expect(PrintfFormat.estimatedInteger(.text("3e9")) == 3_000_000_000)
        #expect(PrintfFormat.estimatedInteger(.real(.nan)) == 0)
    }
}
