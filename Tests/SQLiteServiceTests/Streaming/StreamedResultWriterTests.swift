import Foundation
import HTTPServer
import Synchronization
import Testing

@testable import SQLiteService

/// Streamed `/query` answers through the service's handler, the stream's producer run here with a writer that
/// collects what it is given (the socket side is tested in HTTPServerTests and end to end).
@Suite struct StreamedResultWriterTests {
    private struct Collected {
        var status: Int
        var contentType: String?
        var body: [UInt8]
        var writes: Int
        var failure: (any Error)?
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private func query(_ fixture: ServiceFixture, _ json: String, accept: String) throws -> Collected {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Accept", value: accept)
        let response = fixture.service.handle(
            HTTPRequest(method: "POST", target: "/query", headers: headers, body: Array(json.utf8))
        )
        guard case .stream(let produce) = response.body else {
            guard case .bytes(let bytes) = response.body else { return Collected(status: 0, body: [], writes: 0) }
            return Collected(
                status: Int(response.status.code),
                contentType: response.headers["Content-Type"],
                body: bytes,
                writes: 0
            )
        }
        let collected = Mutex<(bytes: [UInt8], writes: Int)>(([], 0))
        let writer = HTTPBodyWriter.forwarding { bytes in
            collected.withLock {
                $0.bytes += bytes
                $0.writes += 1
            }
        }
        var result = Collected(
            status: Int(response.status.code),
            contentType: response.headers["Content-Type"],
            body: [],
            writes: 0
        )
        do {
            try produce(writer)
        } catch let replacement as HTTPResponseReplacement {
            guard case .bytes(let bytes) = replacement.response.body else { throw replacement }
            return Collected(
                status: Int(replacement.response.status.code),
                contentType: replacement.response.headers["Content-Type"],
                body: bytes,
                writes: 0
            )
        } catch {
            result.failure = error
        }
        (result.body, result.writes) = collected.withLock { ($0.bytes, $0.writes) }
        return result
    }

    /// CSV fields: quoted only when they hold `,` `"` CR or LF (quotes doubled) or are empty text; NULL empty and
    /// unquoted; REAL as in JSON; ±∞ unquoted; BLOB base64 (empty `""`); CRLF after every record.
    @Test func csv_fieldsAsRFC4180() throws {
        let fixture = try ServiceFixture()
        let answer = try query(
            fixture,
            #"{"sql": "SELECT 1 AS i, 'a,b' AS t, 'say \"hi\"' AS q, 'l1\nl2' AS lf, '' AS e, NULL AS n, 2.0 AS r, 9e999 AS inf, -9e999 AS ninf, x'0001' AS b, x'' AS eb, ' sp' AS sp"}"#,
            accept: "text/csv"
        )
        #expect(answer.status == 200)
        #expect(answer.contentType == "text/csv; charset=utf-8; header=present")
        #expect(
            answer.text
                == "i,t,q,lf,e,n,r,inf,ninf,b,eb,sp\r\n1,\"a,b\",\"say \"\"hi\"\"\",\"l1\nl2\",\"\",,2.0,Infinity,-Infinity,AAE=,\"\", sp\r\n"
        )
        #expect(answer.failure == nil)
    }

    /// NDJSON: the head line, a line per row in the request's shape, `{"rows":n}` last.
    @Test func ndjson_headRowsAndCount() throws {
        let fixture = try ServiceFixture()
        let answer = try query(
            fixture,
            #"{"sql": "SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL", "shape": "arrays"}"#,
            accept: "application/x-ndjson"
        )
        #expect(answer.text == "{\"columns\":[\"a\",\"b\"],\"types\":[null,null]}\n[1,\"x\"]\n[2,null]\n{\"rows\":2}\n")
    }

    /// An error before the head (here the first step fails) is the ordinary JSON error, nothing streamed.
    @Test func errorBeforeTheFirstRow_isTheJSONError() throws {
        let fixture = try ServiceFixture()
        for accept in ["text/csv", "application/x-ndjson"] {
            let answer = try query(fixture, #"{"sql": "SELECT abs(-9223372036854775808)"}"#, accept: accept)
            #expect(answer.status == 400)
            #expect(answer.contentType == "application/json; charset=utf-8")
            #expect(answer.text.contains("integer overflow"))
        }
    }

    /// A streamed request is logged when its body ends: with the replacement's status when it answered with a JSON
    /// error, with 200 and the bytes sent otherwise.
    @Test func requestLog_hasTheStatusSentAndTheBytes() throws {
        let fixture = try ServiceFixture()
        _ = try query(fixture, #"{"sql": "SELECT * FROM nowhere"}"#, accept: "text/csv")
        _ = try query(fixture, #"{"sql": "SELECT 1 AS a"}"#, accept: "text/csv")
        let lines = fixture.logs.records.filter { $0.metadata["path"] == "/query" }
        #expect(lines.map { $0.metadata["status"] } == ["400", "200"])
        #expect(lines.last?.metadata["bytes"] == "6")
    }

    /// After the head, NDJSON ends with the error line; CSV's producer throws (the server cuts the response).
    @Test func errorAfterTheHead_ndjsonLine_csvThrows() throws {
        let fixture = try ServiceFixture()
        let sql =
            #"{"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT abs(CASE WHEN x = 5 THEN -9223372036854775808 ELSE x END) AS a FROM c"}"#
        let ndjson = try query(fixture, sql, accept: "application/x-ndjson")
        let lines = ndjson.text.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.last?.hasPrefix(#"{"error":{"code":"SQLITE_ERROR","message":"integer overflow""#) == true)
        #expect(ndjson.failure == nil)
        let csv = try query(fixture, sql, accept: "text/csv")
        #expect(csv.failure is APIError)
        #expect(csv.text == "a\r\n")
    }

    /// Rows are sent as the buffer fills: a large result reaches the writer in many pieces, each about the buffer's
    /// size, never whole; the row limit of JSON responses does not apply.
    @Test func largeResult_isSentInBoundedPieces() throws {
        let fixture = try ServiceFixture()
        let answer = try query(
            fixture,
            #"{"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 150000) SELECT x FROM c"}"#,
            accept: "text/csv"
        )
        #expect(answer.text.hasSuffix("150000\r\n"))
        #expect(answer.writes > answer.body.count / (StreamedResultWriter.flushThreshold + 64))
        #expect(answer.writes > 10)
    }

    /// `params_batch` cannot be streamed: 400 before anything is sent.
    @Test func paramsBatch_is400() throws {
        let fixture = try ServiceFixture()
        let answer = try query(fixture, #"{"sql": "SELECT ?", "params_batch": [[1], [2]]}"#, accept: "text/csv")
        #expect(answer.status == 400)
        #expect(answer.text.contains("INVALID_REQUEST"))
    }
}
