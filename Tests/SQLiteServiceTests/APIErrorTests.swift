import Testing

@testable import SQLiteService

/// The error body parsed back, as an object.
func errorObject(_ error: APIError) throws -> JSONObject {
    guard case .object(let body) = try JSONParser().parse(error.body), body.keys == ["error"],
        case .object(let inner)? = body["error"]
    else {
        throw APIErrorTests.Malformed()
    }
    return inner
}

@Suite struct APIErrorTests {
    struct Malformed: Error {}

    /// Each maker gives the contract's status and code.
    @Test(arguments: [
        (APIError.badRequest(), 400, "BAD_REQUEST"),
        (.invalidJSON("x"), 400, "INVALID_JSON"),
        (.invalidRequest("x"), 400, "INVALID_REQUEST"),
        (.bindError("x"), 400, "BIND_ERROR"),
        (.multipleStatements(), 400, "MULTIPLE_STATEMENTS"),
        (.readonlyStatement(), 400, "READONLY_STATEMENT"),
        (.transactionControl(), 400, "TRANSACTION_CONTROL"),
        (.timeout(), 400, "TIMEOUT"),
        (.unauthorized(), 401, "UNAUTHORIZED"),
        (.forbidden(), 403, "FORBIDDEN"),
        (.notFound(), 404, "NOT_FOUND"),
        (.noSuchTable(), 404, "NO_SUCH_TABLE"),
        (.methodNotAllowed(allow: ["POST"]), 405, "METHOD_NOT_ALLOWED"),
        (.requestTimeout(), 408, "REQUEST_TIMEOUT"),
        (.payloadTooLarge(), 413, "PAYLOAD_TOO_LARGE"),
        (.uriTooLong(), 414, "URI_TOO_LONG"),
        (.unsupportedMediaType(), 415, "UNSUPPORTED_MEDIA_TYPE"),
        (.headersTooLarge(), 431, "HEADERS_TOO_LARGE"),
        (.internal(), 500, "INTERNAL"),
        (.notImplemented(), 501, "NOT_IMPLEMENTED"),
        (.unavailable(), 503, "UNAVAILABLE"),
        (.httpVersionNotSupported(), 505, "HTTP_VERSION_NOT_SUPPORTED"),
    ])
    func makers_useContractStatusAndCode(_ error: APIError, _ status: Int, _ code: String) throws {
        #expect(error.status == status)
        #expect(error.code == code)
        #expect(error.sqliteCode == nil)
        let object = try errorObject(error)
        #expect(object.keys == ["code", "message"])
        #expect(object["code"] == .string(code))
        #expect(object["message"] == .string(error.message))
    }

    /// SQLite result codes map to the contract's statuses by their primary code.
    @Test(arguments: [
        ("SQLITE_ERROR", Int32(1), 400), ("SQLITE_TOOBIG", 18, 400), ("SQLITE_MISMATCH", 20, 400),
        ("SQLITE_RANGE", 25, 400), ("SQLITE_INTERRUPT", 9, 400), ("SQLITE_READONLY", 8, 400),
        ("SQLITE_ERROR_MISSING_COLLSEQ", 257, 400),
        ("SQLITE_CONSTRAINT", 19, 409), ("SQLITE_CONSTRAINT_UNIQUE", 2067, 409),
        ("SQLITE_CONSTRAINT_FOREIGNKEY", 787, 409), ("SQLITE_CONSTRAINT_NOTNULL", 1299, 409),
        ("SQLITE_CONSTRAINT_PRIMARYKEY", 1555, 409), ("SQLITE_CONSTRAINT_CHECK", 275, 409),
        ("SQLITE_BUSY", 5, 503), ("SQLITE_BUSY_SNAPSHOT", 517, 503), ("SQLITE_BUSY_RECOVERY", 261, 503),
        ("SQLITE_LOCKED", 6, 503), ("SQLITE_LOCKED_SHAREDCACHE", 262, 503), ("SQLITE_PROTOCOL", 15, 503),
        ("SQLITE_SCHEMA", 17, 503),
        ("SQLITE_AUTH", 23, 403),
        ("SQLITE_FULL", 13, 507),
        ("SQLITE_IOERR", 10, 500), ("SQLITE_IOERR_READ", 266, 500), ("SQLITE_IOERR_FSYNC", 1034, 500),
        ("SQLITE_CORRUPT", 11, 500), ("SQLITE_CORRUPT_INDEX", 779, 500), ("SQLITE_INTERNAL", 2, 500),
        ("SQLITE_PERM", 3, 500), ("SQLITE_ABORT", 4, 500), ("SQLITE_NOMEM", 7, 500),
        ("SQLITE_READONLY_DBMOVED", 1032, 500), ("SQLITE_CANTOPEN", 14, 500), ("SQLITE_MISUSE", 21, 500),
        ("SQLITE_NOTADB", 26, 500), ("SQLITE_DONE", 101, 500),
    ])
    func sqlite_mapsResultCodeToStatus(_ name: String, _ code: Int32, _ status: Int) throws {
        let error = APIError.sqlite(name: name, code: code, message: "m")
        #expect(error.status == status)
        #expect(APIError.httpStatus(forSQLiteCode: code) == status)
        #expect(error.code == name)
        #expect(error.sqliteCode == code)
        let retryAfter = error.headers.filter { $0.name == "Retry-After" }.map(\.value)
        #expect(retryAfter == (status == 503 ? ["1"] : []))
        let object = try errorObject(error)
        #expect(object.keys == ["code", "message", "sqlite_code"])
        #expect(object["sqlite_code"] == .integer(Int64(code)))
    }

    /// A statement failure in a batch or transaction carries statement_index and rolled_back, in contract order.
    @Test func body_includesStatementIndexAndRolledBack() throws {
        let error = APIError.sqlite(
            name: "SQLITE_CONSTRAINT_UNIQUE",
            code: 2067,
            message: "UNIQUE constraint failed: users.email"
        )
        .at(statementIndex: 1, rolledBack: true)
        #expect(
            String(decoding: error.body, as: UTF8.self)
                == #"{"error":{"code":"SQLITE_CONSTRAINT_UNIQUE","message":"UNIQUE constraint failed: users.email","sqlite_code":2067,"statement_index":1,"rolled_back":true}}"#
        )
        let notSQLite = APIError.bindError("parameter 1: x").at(statementIndex: 0, rolledBack: false)
        let object = try errorObject(notSQLite)
        #expect(object.keys == ["code", "message", "statement_index", "rolled_back"])
        #expect(object["rolled_back"] == .bool(false))
    }

    /// The error object alone can be written inside another document (a /batch result entry).
    @Test func write_emitsErrorObjectInsideDocument() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        writer.beginObject()
        writer.key("error")
        APIError.timeout().at(statementIndex: 2, rolledBack: false).write(to: &writer)
        writer.endObject()
        writer.endArray()
        writer.endObject()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == #"{"results":[{"error":{"code":"TIMEOUT","message":"the request's time limit was reached","statement_index":2,"rolled_back":false}}]}"#
        )
    }

    /// Messages with quotes, control characters or invalid-looking text still give valid JSON.
    @Test func body_escapesMessage() throws {
        let error = APIError.invalidRequest("unknown key \"a\u{0}\n\\\"")
        let object = try errorObject(error)
        #expect(object["message"] == .string("unknown key \"a\u{0}\n\\\""))
    }

    /// 405 carries Allow, 401 carries a Bearer challenge, 503 UNAVAILABLE carries Retry-After only when asked.
    @Test func makers_setHeaders() {
        let notAllowed = APIError.methodNotAllowed(allow: ["GET", "HEAD"])
        #expect(notAllowed.headers.map(\.name) == ["Allow"])
        #expect(notAllowed.headers.map(\.value) == ["GET, HEAD"])
        #expect(APIError.unauthorized().headers.map(\.name) == ["WWW-Authenticate"])
        #expect(APIError.unauthorized().headers.first?.value.hasPrefix("Bearer") == true)
        #expect(APIError.unavailable().headers.isEmpty)
        #expect(APIError.unavailable(retryAfter: 5).headers.map(\.value) == ["5"])
        #expect(APIError.forbidden().headers.isEmpty)
    }

    /// The description gives status, code and message for logs.
    @Test func description_namesStatusAndCode() {
        #expect(APIError.notFound("no such endpoint").description == "404 NOT_FOUND: no such endpoint")
    }
}
