import Testing

@testable import SQLiteService

/// The one-pass reading of the common `/query` and `/update` body: whatever it takes decodes exactly as the general
/// path does, and whatever it leaves (escapes, non-ASCII, other numbers, options, errors) goes to the general path.
@Suite struct SimpleStatementBodyTests {
    static let taken = [
        #"{"sql": "SELECT * FROM t WHERE id = ?", "params": [4242]}"#,
        #"{"sql":"SELECT 1"}"#,
        #"  {"params": [1, -2, 0, "a b", true, false, null], "sql": "SELECT ?, ?, ?, ?, ?, ?, ?"}  "#,
        "{\n\t\"sql\" :\r\n \"SELECT ?\" , \"params\" : [ 123456789012345678 ] }",
        #"{"sql": "SELECT 1", "params": []}"#,
        #"{"sql": ""}"#,
    ]

    static let left = [
        #"{"sql": "SELECT 'caf\u00e9'"}"#, #"{"sql": "SELECT 'café'"}"#, #"{"sql": "SELECT \"x\""}"#,
        #"{"sql": "SELECT ?", "params": [1.5]}"#, #"{"sql": "SELECT ?", "params": [1e3]}"#,
        #"{"sql": "SELECT ?", "params": [-0]}"#, #"{"sql": "SELECT ?", "params": [007]}"#,
        #"{"sql": "SELECT ?", "params": [1234567890123456789]}"#, #"{"sql": "SELECT ?", "params": [{"base64": ""}]}"#,
        #"{"sql": "SELECT ?", "params": {"a": 1}}"#, #"{"sql": "SELECT 1", "max_rows": 1}"#,
        #"{"sql": "SELECT 1", "sql": "SELECT 2"}"#, #"{"sql": "SELECT 1",}"#, #"{"sql": "SELECT 1""#, "{}", "[]", "",
        #"{"sql": 1}"#, #"{"sql": "SELECT ?", "params": [truex]}"#, #"{"sql": "SELECT ?", "params": [1,]}"#,
        #"{"sql": "SELECT ?", "params_batch": [[1]]}"#, #"{"sql": "SELECT 1"} x"#, "{\"sql\": \"a\tb\"}",
    ]

    @Test(arguments: taken)
    func taken_decodesAsTheGeneralPath(_ body: String) throws {
        let bytes = Array(body.utf8)
        let fast = try #require(SimpleStatementBody.decode(bytes))
        let general = try RequestDecoder().decodeQueryInGeneral(bytes)
        #expect(fast == general.statement)
        #expect(general.options == RequestOptions())
        #expect(try RequestDecoder().decodeQuery(bytes) == general)
        #expect(try RequestDecoder().decodeUpdate(bytes).statement == general.statement)
    }

    @Test(arguments: left)
    func left_goesToTheGeneralPath(_ body: String) {
        #expect(SimpleStatementBody.decode(Array(body.utf8)) == nil)
    }

    /// Random bodies from the grammar's pieces: the one-pass reading never disagrees with the general path.
    @Test func randomBodies_neverDisagree() throws {
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"sql\"", "\"params\"", "\"SELECT ?\"", "1", "-7", "0", "true", "null",
            "\"x\"", "1.5", "\"\\n\"", "\"max_rows\"",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...14, using: &generator)
            let body = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(body.utf8)
            guard let fast = SimpleStatementBody.decode(bytes) else { continue }
            let general = try RequestDecoder().decodeQueryInGeneral(bytes)
            #expect(fast == general.statement, "\(body)")
        }
        // Well-formed statement bodies with random spacing and values, most of them taken.
        let values = ["0", "-1", "42", "999999999999999999", "\"a\"", "\"\"", "true", "false", "null", "2.5", "-0"]
        let spaces = ["", " ", "\n", "\t "]
        var taken = 0
        for _ in 0..<5_000 {
            func space() -> String { spaces.randomElement(using: &generator)! }
            let params = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                space() + values.randomElement(using: &generator)! + space()
            }
            let members = [
                "\"sql\"" + space() + ":" + space() + "\"SELECT ?, ?\"",
                "\"params\"" + space() + ":" + space() + "[" + params.joined(separator: ",") + "]",
            ]
            let ordered = Bool.random(using: &generator) ? members : members.reversed()
            let body = space() + "{" + space() + ordered.joined(separator: space() + "," + space()) + space() + "}"
            let bytes = Array(body.utf8)
            let general = try RequestDecoder().decodeQueryInGeneral(bytes)
            if let fast = SimpleStatementBody.decode(bytes) {
                taken += 1
                #expect(fast == general.statement, "\(body)")
            }
        }
        #expect(taken > 1_000)
    }

    /// The thread's last SQL text is given again only for the same bytes: texts of the same length, alternating,
    /// and one past the kept size each read back as sent.
    @Test func recentSQLText_reusedOnlyForTheSameBytes() {
        let long = "SELECT " + String(repeating: "1 + ", count: RecentSQLText.maxBytes / 4) + "1"
        let texts = [
            "SELECT * FROM t WHERE id = ?", "SELECT * FROM t WHERE id = !", "SELECT * FROM t WHERE id = ?", "",
            "SELECT * FROM t WHERE id = ?", long, long, "SELECT 1", "SELECT 2", "SELECT 2",
        ]
        for text in texts {
            let body = #"{"sql": ""# + text + #""}"#
            #expect(SimpleStatementBody.decode(Array(body.utf8))?.sql.utf8.elementsEqual(text.utf8) == true)
        }
    }

    /// The same body bytes twice on one thread give the very same String (one storage, reused), and different
    /// bytes a String of their own.
    @Test func recentSQLText_sameBytes_sameString() {
        let sql = "SELECT * FROM t WHERE id = ? AND name = ?"
        let first = Array(sql.utf8).withUnsafeBufferPointer { RecentSQLText.text($0) }
        let second = Array(sql.utf8).withUnsafeBufferPointer { RecentSQLText.text($0) }
        let other = Array((sql + " ").utf8).withUnsafeBufferPointer { RecentSQLText.text($0) }
        #expect(Self.representation(first) == Self.representation(second))
        #expect(Self.representation(first) != Self.representation(other))
        #expect(other == sql + " ")
    }

    static func representation(_ string: String) -> [UInt8] {
        withUnsafeBytes(of: string) { Array($0) }
    }
}
