/// An error reported to the HTTP client, with the status and the stable machine-readable code of the API contract.
///
/// Each error of the contract's table has a maker (``invalidJSON(_:)``, ``bindError(_:)``, ``sqlite(name:code:message:)``
/// …). The body is written by ``writeBody(to:)``:
///
/// ```json
/// {"error": {"code": "SQLITE_CONSTRAINT_UNIQUE", "message": "UNIQUE constraint failed: users.email",
///            "sqlite_code": 2067, "statement_index": 1, "rolled_back": true}}
/// ```
///
/// A message must never contain a bound parameter value; the makers in this module name parameters by position or
/// key only.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status code.
    public var status: Int
    /// The stable code: an SQLite extended result code's name (`SQLITE_…`) or one of the contract's names.
    public var code: String
    /// A human-readable explanation.
    public var message: String
    /// The SQLite extended result code; set exactly when ``code`` is an SQLite code name.
    public var sqliteCode: Int32?
    /// The 0-based index of the failed statement within a `/batch` or `/transaction`.
    public var statementIndex: Int?
    /// Whether the failure undid the earlier statements of the request; set with ``statementIndex``.
    public var rolledBack: Bool?
    /// The 0-based index of the failed row of a `POST /tables/{table}/rows`.
    public var rowIndex: Int?
    /// Whether the interactive transaction (`/transactions/{id}`) whose request failed is still open.
    public var transactionOpen: Bool?
    /// Extra response header fields, such as `Retry-After` or `Allow`.
    public var headers: [(name: String, value: String)]

    public init(
        status: Int,
        code: String,
        message: String,
        sqliteCode: Int32? = nil,
        statementIndex: Int? = nil,
        rolledBack: Bool? = nil,
        headers: [(name: String, value: String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.sqliteCode = sqliteCode
        self.statementIndex = statementIndex
        self.rolledBack = rolledBack
        self.headers = headers
    }

    public var description: String {
        "\(status) \(code): \(message)"
    }

    /// The same error, attributed to statement `index` of a `/batch` or `/transaction`.
    public func at(statementIndex index: Int, rolledBack: Bool) -> APIError {
        var error = self
        error.statementIndex = index
        error.rolledBack = rolledBack
        return error
    }
}

// MARK: - Makers for the contract's codes

extension APIError {
    /// 400 `BAD_REQUEST`: malformed HTTP (RFC 9112 §2.2, §6.3); the connection is closed after the response.
    public static func badRequest(_ message: String = "malformed HTTP request") -> APIError {
        APIError(status: 400, code: "BAD_REQUEST", message: message)
    }

    /// 400 `INVALID_JSON`: the body is not a JSON document.
    public static func invalidJSON(_ message: String) -> APIError {
        APIError(status: 400, code: "INVALID_JSON", message: message)
    }

    /// 400 `INVALID_JSON` for a parse error; the message holds the offset and reason, never the input.
    public static func invalidJSON(_ error: JSONParseError) -> APIError {
        invalidJSON(error.description)
    }

    /// 400 `INVALID_REQUEST`: valid JSON of the wrong shape (missing or unknown key, wrong type, out of range).
    public static func invalidRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "INVALID_REQUEST", message: message)
    }

    /// 400 `BIND_ERROR`: a parameter value that cannot be bound, or parameters that do not match the statement.
    ///
    /// The message names the parameter (`parameter 2`, `parameter :id`), never its value.
    public static func bindError(_ message: String) -> APIError {
        APIError(status: 400, code: "BIND_ERROR", message: message)
    }

    /// 400 `MULTIPLE_STATEMENTS`: `sql` holds more than one statement.
    public static func multipleStatements(
        _ message: String = "\"sql\" must hold exactly one statement; use /batch with \"script\" for several"
    ) -> APIError {
        APIError(status: 400, code: "MULTIPLE_STATEMENTS", message: message)
    }

    /// 400 `READONLY_STATEMENT`: a statement that would write, sent to `/query`.
    public static func readonlyStatement(
        _ message: String = "the statement would write; /query only runs read-only statements, use /update"
    ) -> APIError {
        APIError(status: 400, code: "READONLY_STATEMENT", message: message)
    }

    /// 400 `TRANSACTION_CONTROL`: `BEGIN`, `COMMIT`, `END`, `ROLLBACK` (or a savepoint outside `/transaction`).
    public static func transactionControl(
        _ message: String = "transaction control statements are not allowed; use /transaction"
    ) -> APIError {
        APIError(status: 400, code: "TRANSACTION_CONTROL", message: message)
    }

    /// 400 `TIMEOUT`: the request's time limit was reached.
    public static func timeout(_ message: String = "the request's time limit was reached") -> APIError {
        APIError(status: 400, code: "TIMEOUT", message: message)
    }

    /// 401 `UNAUTHORIZED`: missing or unknown bearer token, with the challenge of RFC 6750 §3 (RFC 9110 §11.6.1
    /// requires `WWW-Authenticate` on every 401).
    public static func unauthorized(_ message: String = "a valid bearer token is required") -> APIError {
        APIError(
            status: 401,
            code: "UNAUTHORIZED",
            message: message,
            headers: [(name: "WWW-Authenticate", value: "Bearer realm=\"sqlited\"")]
        )
    }

    /// 403 `FORBIDDEN`: the token lacks the permission for this endpoint.
    public static func forbidden(_ message: String = "the token does not grant this permission") -> APIError {
        APIError(status: 403, code: "FORBIDDEN", message: message)
    }

    /// 404 `NOT_FOUND`: unknown path.
    public static func notFound(_ message: String = "no such endpoint") -> APIError {
        APIError(status: 404, code: "NOT_FOUND", message: message)
    }

    /// 404 `NO_SUCH_TABLE`: `GET /schema/{table}` for a table that does not exist.
    public static func noSuchTable(_ message: String = "no such table") -> APIError {
        APIError(status: 404, code: "NO_SUCH_TABLE", message: message)
    }

    /// 404 `NO_SUCH_ROW`: a Tables request for a key no row has.
    public static func noSuchRow(_ message: String = "no row has that key") -> APIError {
        APIError(status: 404, code: "NO_SUCH_ROW", message: message)
    }

    /// 400 `NO_SUCH_COLUMN`: a Tables request naming a column the table does not have.
    public static func noSuchColumn(_ message: String) -> APIError {
        APIError(status: 400, code: "NO_SUCH_COLUMN", message: message)
    }

    /// 405 `METHOD_NOT_ALLOWED` with the `Allow` header listing the methods the path supports (RFC 9110 §15.5.6).
    public static func methodNotAllowed(allow methods: [String]) -> APIError {
        let allow = methods.joined(separator: ", ")
        return APIError(
            status: 405,
            code: "METHOD_NOT_ALLOWED",
            message: "method not allowed; allowed: \(allow)",
            headers: [(name: "Allow", value: allow)]
        )
    }

    /// 408 `REQUEST_TIMEOUT`: the request head did not arrive in time.
    public static func requestTimeout(_ message: String = "the request was not received in time") -> APIError {
        APIError(status: 408, code: "REQUEST_TIMEOUT", message: message)
    }

    /// 413 `PAYLOAD_TOO_LARGE`: the body exceeds the limit.
    public static func payloadTooLarge(_ message: String = "the request body is too large") -> APIError {
        APIError(status: 413, code: "PAYLOAD_TOO_LARGE", message: message)
    }

    /// 414 `URI_TOO_LONG`: the request target exceeds the limit.
    public static func uriTooLong(_ message: String = "the request target is too long") -> APIError {
        APIError(status: 414, code: "URI_TOO_LONG", message: message)
    }

    /// 415 `UNSUPPORTED_MEDIA_TYPE`: a `Content-Type` other than `application/json` (see ``JSONContentType``).
    public static func unsupportedMediaType(
        _ message: String = "the request body must be application/json (UTF-8)"
    ) -> APIError {
        APIError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: message)
    }

    /// 431 `HEADERS_TOO_LARGE`: the request head exceeds the limits (RFC 6585 §5).
    public static func headersTooLarge(_ message: String = "the request header fields are too large") -> APIError {
        APIError(status: 431, code: "HEADERS_TOO_LARGE", message: message)
    }

    /// 500 `INTERNAL`: anything unexpected; log the details server-side, not in the message.
    public static func `internal`(_ message: String = "internal error") -> APIError {
        APIError(status: 500, code: "INTERNAL", message: message)
    }

    /// 406 `NOT_ACCEPTABLE`: the request's `Accept` allows none of the formats a result is sent in (RFC 9110 §15.5.7).
    public static func notAcceptable(_ message: String) -> APIError {
        APIError(status: 406, code: "NOT_ACCEPTABLE", message: message)
    }

    /// 501 `NOT_IMPLEMENTED`: a transfer coding other than chunked (RFC 9112 §6.1).
    public static func notImplemented(_ message: String = "transfer coding not implemented") -> APIError {
        APIError(status: 501, code: "NOT_IMPLEMENTED", message: message)
    }

    /// 503 `UNAVAILABLE`: starting or shutting down.
    ///
    /// - Parameter retryAfter: seconds for a `Retry-After` header (RFC 9110 §10.2.3), if a retry makes sense.
    public static func unavailable(
        _ message: String = "the server is not accepting requests",
        retryAfter: Int? = nil
    ) -> APIError {
        APIError(
            status: 503,
            code: "UNAVAILABLE",
            message: message,
            headers: retryAfter.map { [(name: "Retry-After", value: String($0))] } ?? []
        )
    }

    /// 409 `IDEMPOTENCY_IN_PROGRESS`: the same request with this key is running now.
    public static var idempotencyInProgress: APIError {
        APIError(
            status: 409,
            code: "IDEMPOTENCY_IN_PROGRESS",
            message: "a request with this Idempotency-Key is running; retry after it has been answered",
            headers: [(name: "Retry-After", value: "1")]
        )
    }

    /// 422 `IDEMPOTENCY_KEY_REUSED`: the key belongs to another request (method, target or body).
    public static var idempotencyKeyReused: APIError {
        APIError(
            status: 422,
            code: "IDEMPOTENCY_KEY_REUSED",
            message: "this Idempotency-Key was used for another request (method, target or body); use a new key"
        )
    }

    /// 505 `HTTP_VERSION_NOT_SUPPORTED`: an HTTP major version other than 1.
    public static func httpVersionNotSupported(_ message: String = "only HTTP/1.x is supported") -> APIError {
        APIError(status: 505, code: "HTTP_VERSION_NOT_SUPPORTED", message: message)
    }
}

// MARK: - SQLite result codes

extension APIError {
    /// An error reported by SQLite, with the status the contract gives its result code.
    ///
    /// `503` answers (busy, locked) carry `Retry-After: 1`.
    ///
    /// - Parameters:
    ///   - name: the extended result code's name, such as `SQLITE_CONSTRAINT_UNIQUE`; it becomes ``code``.
    ///   - code: the extended result code, such as 2067; it becomes ``sqliteCode`` and chooses the status.
    ///   - message: SQLite's message (`sqlite3_errmsg`), which never contains bound values.
    public static func sqlite(name: String, code: Int32, message: String) -> APIError {
        let status = httpStatus(forSQLiteCode: code)
        return APIError(
            status: status,
            code: name,
            message: message,
            sqliteCode: code,
            headers: status == 503 ? [(name: "Retry-After", value: "1")] : []
        )
    }

    /// The HTTP status for an SQLite (extended) result code, chosen by its primary code (`code & 0xFF`).
    ///
    /// The contract fixes CONSTRAINT → 409, BUSY and LOCKED → 503, IOERR and CORRUPT → 500, FULL → 507, AUTH → 403,
    /// and ERROR, MISMATCH, TOOBIG, RANGE → 400. The rest, decided here:
    /// - 400, the client's statement is at fault: READONLY in its plain form (writing where only reading is
    ///   allowed) and INTERRUPT (only the request's time limit interrupts a statement).
    /// - 503 with `Retry-After`, transient and worth retrying: PROTOCOL (a WAL lock race) and SCHEMA (the schema
    ///   changed under a prepared statement).
    /// - 500, the server is at fault: INTERNAL, PERM, ABORT, NOMEM, the READONLY_* variants (read-only file or
    ///   directory, moved database), NOTFOUND, CANTOPEN, EMPTY, MISUSE, NOLFS, FORMAT, NOTADB, and codes that are
    ///   not errors (OK, NOTICE, WARNING, ROW, DONE) or unknown.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
    public static func httpStatus(forSQLiteCode code: Int32) -> Int {
        switch code & 0xFF {
        case 1, 18, 20, 25: 400  // ERROR, TOOBIG, MISMATCH, RANGE
        case 8: code == 8 ? 400 : 500  // READONLY, READONLY_*
        case 9: 400  // INTERRUPT
        case 5, 6, 15, 17: 503  // BUSY, LOCKED, PROTOCOL, SCHEMA
        case 19: 409  // CONSTRAINT
        case 23: 403  // AUTH
        case 13: 507  // FULL
        default: 500
        }
    }
}

// MARK: - Body

extension APIError {
    /// Writes the error object `{"code":…,"message":…}` with `sqlite_code`, `statement_index` and `rolled_back`
    /// present only when set, as the contract's `error` member (also used inside `/batch` results).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("code")
        writer.writeString(code)
        writer.key("message")
        writer.writeString(message)
        if let sqliteCode {
            writer.key("sqlite_code")
            writer.writeInt64(Int64(sqliteCode))
        }
        if let statementIndex {
            writer.key("statement_index")
            writer.writeInt64(Int64(statementIndex))
        }
        if let rowIndex {
            writer.key("row_index")
            writer.writeInt64(Int64(rowIndex))
        }
        if let rolledBack {
            writer.key("rolled_back")
            writer.writeBool(rolledBack)
        }
        if let transactionOpen {
            writer.key("transaction_open")
            writer.writeBool(transactionOpen)
        }
        writer.endObject()
    }

    /// Writes the whole response body: `{"error":{…}}`.
    public func writeBody(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("error")
        write(to: &writer)
        writer.endObject()
    }

    /// The whole response body, `{"error":{…}}`, as bytes.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: 128 + message.utf8.count)
        writeBody(to: &writer)
        return writer.takeBytes()
    }
}

extension APISchemas {
    /// The JSON Schemas of the error body (OpenAPI, ``APISchemas``).
    static let errorBody: [(name: String, json: String)] = [
        (
            "Error",
            ##"{"type": "object", "required": ["error"], "properties": {"error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        ),
        (
            "ErrorObject",
            ##"{"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "string", "description": "Stable and machine-readable: the SQLite extended result code's name (SQLITE_…) or one of the contract's names."}, "message": {"type": "string"}, "sqlite_code": {"type": "integer"}, "statement_index": {"type": "integer"}, "rolled_back": {"type": "boolean"}, "row_index": {"type": "integer"}, "transaction_open": {"type": "boolean"}}}"##
        ),
    ]
}
