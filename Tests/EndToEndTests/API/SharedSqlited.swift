import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One `sqlited` process shared by the API end-to-end suites, started on first use.
///
/// Starting the binary for every test would make the suites slow, so tests share this server and keep apart by
/// using their own table names (``uniqueTableName(_:)``). Tests that need special flags or stop the server start
/// their own ``ServerProcess``. The process is killed and its directory removed when the test process exits.
///
/// `@unchecked Sendable`: after `init` the only state read from several threads is the immutable `baseURL`; the
/// process and directory are only touched again by the exit handler, after every test has finished.
final class SharedSqlited: @unchecked Sendable {
    let baseURL: String
    private let process: ServerProcess
    private let directory: TemporaryDirectory

    private init() throws {
        directory = try TemporaryDirectory(prefix: "sqlited-e2eapi")
        // SQLITED_E2E_SERVER_LOG=path: run the shared server at debug level and write its stderr there at exit.
        let logLevel = ProcessInfo.processInfo.environment["SQLITED_E2E_SERVER_LOG"] == nil ? "info" : "debug"
        process = try ServerProcess.startSqlited(directory: directory.url, extraArguments: ["--log-level", logLevel])
        baseURL = process.baseURL
    }

    private static let started: Result<SharedSqlited, any Error> = {
        let result = Result { try SharedSqlited() }
        if case .success(let server) = result {
            running.withLock { $0 = server }
            // A static is never released, so without this the child would outlive the test run.
            atexit { SharedSqlited.stopRunning() }
        }
        return result
    }()

    private static let running = Mutex<SharedSqlited?>(nil)

    private static func stopRunning() {
        guard let server = running.withLock({ $0.take() }) else { return }
        server.process.kill()
        if let logPath = ProcessInfo.processInfo.environment["SQLITED_E2E_SERVER_LOG"] {
            server.process.waitForOutputToEnd()
            try? server.process.stderrLines.joined(separator: "\n").write(
                toFile: logPath,
                atomically: true,
                encoding: .utf8
            )
        }
        try? FileManager.default.removeItem(at: server.directory.url)
    }

    /// The shared server, starting it if this is the first call.
    static func get() throws -> SharedSqlited {
        try started.get()
    }

    /// A new client on its own connection.
    func makeClient() throws -> HTTPTestClient {
        try HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
    }
}

/// A table name no other test uses: `prefix_` and 12 random hex digits.
func uniqueTableName(_ prefix: String = "t") -> String {
    "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
}

extension HTTPTestClient {
    /// `POST path` with `json` as the body, `Content-Type: application/json`.
    func post(_ path: String, _ json: String) throws -> HTTPTestResponse {
        try postJSON(path, text: json)
    }

    /// `POST path` and checks for a 200 JSON answer; returns the parsed body.
    @discardableResult
    func ok(_ path: String, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let response = try postJSON(path, text: json)
        #expect(response.status == 200, "\(path) \(json) → \(response.bodyText)", sourceLocation: sourceLocation)
        expectJSONContentType(response, sourceLocation: sourceLocation)
        return try response.json()
    }

    /// Runs one statement on `/update` and requires success (for setting up tables).
    @discardableResult
    func update(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let response = try postJSON("/update", .object(["sql": .string(sql)]))
        try #require(response.status == 200, "\(sql) → \(response.bodyText)", sourceLocation: sourceLocation)
        return try response.json()
    }

    /// Runs one read on `/query` and returns its rows as arrays (requires success).
    func rows(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        let response = try postJSON(
            "/query",
            .object(["sql": .string(sql), "shape": .string("arrays")])
        )
        try #require(response.status == 200, "\(sql) → \(response.bodyText)", sourceLocation: sourceLocation)
        return try #require(try response.json()["rows"]?.arrayValue, sourceLocation: sourceLocation)
    }

    /// The single integer a `SELECT count(*) …` (or any one-value query) returns.
    func scalarInt(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64? {
        try rows(sql, sourceLocation: sourceLocation).first?[0]?.int64Value
    }
}

/// Checks `Content-Type: application/json; charset=utf-8`.
func expectJSONContentType(_ response: HTTPTestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        response.header("Content-Type") == "application/json; charset=utf-8",
        "Content-Type: \(response.header("Content-Type") ?? "none")",
        sourceLocation: sourceLocation
    )
}

/// What an error response must look like.
struct ExpectedError: Sendable, CustomStringConvertible {
    var status: Int
    var code: String
    /// The statement index expected in the error; nil when there must be none.
    var statementIndex: Int? = nil
    /// `rolled_back` expected with the statement index.
    var rolledBack: Bool? = nil

    var description: String { "\(status) \(code)" }
}

/// Checks an error answer against the contract: status, JSON content type, `error.code`, a `message` string,
/// `sqlite_code` present exactly when the code starts with `SQLITE_`, and `statement_index` / `rolled_back` as given.
///
/// - Returns: the `error` object, for further checks.
@discardableResult
func expectError(
    _ response: HTTPTestResponse,
    _ expected: ExpectedError,
    sourceLocation: SourceLocation = #_sourceLocation
) -> JSONValue? {
    #expect(response.status == expected.status, "\(expected): \(response.bodyText)", sourceLocation: sourceLocation)
    expectJSONContentType(response, sourceLocation: sourceLocation)
    guard let body = try? response.json(), let error = body["error"] else {
        Issue.record("no error object in \(response.bodyText)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error["code"]?.stringValue == expected.code, "\(response.bodyText)", sourceLocation: sourceLocation)
    #expect(error["message"]?.stringValue != nil, sourceLocation: sourceLocation)
    let sqliteCode = error["sqlite_code"]
    if expected.code.hasPrefix("SQLITE_") {
        #expect(
            sqliteCode?.int64Value != nil,
            "sqlite_code missing: \(response.bodyText)",
            sourceLocation: sourceLocation
        )
    } else {
        #expect(sqliteCode == nil, "unexpected sqlite_code: \(response.bodyText)", sourceLocation: sourceLocation)
    }
    #expect(
        error["statement_index"]?.int64Value == expected.statementIndex.map(Int64.init),
        "statement_index: \(response.bodyText)",
        sourceLocation: sourceLocation
    )
    #expect(
        error["statement_index"] == nil || error["statement_index"]?.int64Value != nil,
        sourceLocation: sourceLocation
    )
    #expect(
        error["rolled_back"]?.boolValue == expected.rolledBack,
        "rolled_back: \(response.bodyText)",
        sourceLocation: sourceLocation
    )
    return error
}

/// A JSON string literal for `text` (quotes and escapes added), for building request bodies by interpolation.
func jsonString(_ text: String) -> String {
    JSONValue.string(text).serialized
}
