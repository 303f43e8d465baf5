import Foundation

/// Runs sqllogictest records against sqlited over HTTP (see the corpus README):
///
/// - `statement ok|error` → `POST /batch {"script": SQL}`. `ok` passes on 2xx with no error in the body; `error`
///   passes on a 4xx client/SQL error. A 5xx is a failure either way (it means a server fault, not an SQL error).
/// - `query` → `POST /query {"sql": SQL, "shape": "arrays"}`; the rows are printed, sorted and compared (or hashed)
///   as ``SLTFormatter`` describes; queries sharing a label must hash alike.
/// - A record refused with 403 `SQLITE_AUTH` (sqlited's SQL policy) is skipped and counted, and so is every later
///   record whose SQL names, as a whole word (case-insensitively), an object that a refused `CREATE` would have made.
///
/// Not `Sendable`: it drives one ``HTTPTestClient``.
final class SLTRunner {
    let client: HTTPTestClient
    /// The engine name `skipif`/`onlyif` lines are matched against.
    let engine: String
    let maximumFailureDescriptions: Int

    /// sqllogictest's default threshold: results with more than 8 values are compared by hash.
    static let defaultHashThreshold = 8

    init(client: HTTPTestClient, engine: String = "sqlite", maximumFailureDescriptions: Int = 20) {
        self.client = client
        self.engine = engine
        self.maximumFailureDescriptions = maximumFailureDescriptions
    }

    /// A runner with its own client for a base URL such as `http://127.0.0.1:8080`.
    convenience init(baseURL: String, engine: String = "sqlite", maximumFailureDescriptions: Int = 20) throws {
        self.init(
            client: try HTTPTestClient(baseURL: baseURL),
            engine: engine,
            maximumFailureDescriptions: maximumFailureDescriptions
        )
    }

    /// Parses and runs a script file.
    func run(fileAt url: URL, displayName: String? = nil) throws -> SLTRunReport {
        let records = try SLTParser.parse(contentsOf: url)
        return run(records: records, fileName: displayName ?? url.lastPathComponent)
    }

    /// Runs parsed records in order; `fileName` labels failures.
    func run(records: [SLTRecord], fileName: String) -> SLTRunReport {
        var state = FileState(fileName: fileName)
        state.report.maximumFailureDescriptions = maximumFailureDescriptions
        for record in records {
            guard record.applies(toEngine: engine) else {
                if record.sql != nil { state.report.skippedByCondition += 1 }
                continue
            }
            switch record.command {
            case .hashThreshold(let threshold):
                state.hashThreshold = threshold
            case .halt:
                state.report.stoppedEarly.append("\(fileName):\(record.line): halt")
                return state.report
            case .statement(let expectsError, let sql):
                if state.dependsOnRefusedObject(sql) {
                    state.report.skippedByPolicy += 1
                    continue
                }
                do {
                    try runStatement(sql: sql, expectsError: expectsError, line: record.line, state: &state)
                } catch {
                    state.stop(line: record.line, sql: sql, error: error)
                    return state.report
                }
            case .query(let query):
                if state.dependsOnRefusedObject(query.sql) {
                    state.report.skippedByPolicy += 1
                    continue
                }
                do {
                    try runQuery(query, line: record.line, state: &state)
                } catch {
                    state.stop(line: record.line, sql: query.sql, error: error)
                    return state.report
                }
            }
        }
        return state.report
    }

    /// Per-file state: sqllogictest scopes the hash threshold and labels to one script.
    private struct FileState {
        var fileName: String
        var report = SLTRunReport()
        var hashThreshold = SLTRunner.defaultHashThreshold
        var labelHashes: [String: String] = [:]
        /// Lowercased names of objects whose CREATE was refused by policy.
        var refusedObjects: Set<String> = []

        func dependsOnRefusedObject(_ sql: String) -> Bool {
            guard !refusedObjects.isEmpty else { return false }
            return SQLWords.words(in: sql).contains(where: { refusedObjects.contains($0) })
        }

        mutating func fail(line: Int, sql: String, reason: String, expected: String? = nil, got: String? = nil) {
            report.recordFailure(
                SLTFailure(file: fileName, line: line, sql: sql, reason: reason, expected: expected, got: got)
            )
        }

        /// A transport error (the server died or hung): count it and stop the file, the rest would only repeat it.
        mutating func stop(line: Int, sql: String, error: any Error) {
            fail(line: line, sql: sql, reason: "request failed: \(error)")
            report.stoppedEarly.append("\(fileName):\(line): \(error)")
        }
    }

    // MARK: Statements

    private func runStatement(sql: String, expectsError: Bool, line: Int, state: inout FileState) throws {
        let response = try client.postJSON("/batch", .object(["script": .string(sql)]))
        let outcome = Self.outcome(of: response)
        switch outcome {
        case .refusedByPolicy:
            state.report.skippedByPolicy += 1
            state.refusedObjects.formUnion(SQLWords.createdObjectNames(in: sql))
        case .success:
            if let embedded = Self.embeddedError(in: response) {
                state.fail(line: line, sql: sql, reason: "statement reported an error in a 2xx response: \(embedded)")
            } else if expectsError {
                state.fail(line: line, sql: sql, reason: "statement succeeded but an error was expected")
            } else {
                state.report.passed += 1
            }
        case .clientError(let summary):
            if expectsError {
                state.report.passed += 1
            } else {
                state.fail(line: line, sql: sql, reason: "statement failed: \(summary)")
            }
        case .serverError(let summary):
            state.fail(line: line, sql: sql, reason: "server error: \(summary)")
        }
    }

    // MARK: Queries

    private func runQuery(_ query: SLTQuery, line: Int, state: inout FileState) throws {
        let response = try client.postJSON(
            "/query",
            .object(["sql": .string(query.sql), "shape": .string("arrays")])
        )
        switch Self.outcome(of: response) {
        case .refusedByPolicy:
            state.report.skippedByPolicy += 1
            return
        case .clientError where query.expectedLines.isEmpty && Self.isSteppingError(response):
            // The reference harness stops reading rows at a stepping error (an integer overflow in sum()) and
            // reports what it has, so a query expecting no rows passes there; the API reports the error instead.
            // Only that run-time error is accepted: a prepare-time error such as "no such table" still fails.
            state.report.passed += 1
            state.report.queryErrorsTreatedAsEmpty += 1
            return
        case .clientError(let summary), .serverError(let summary):
            state.fail(line: line, sql: query.sql, reason: "query failed: \(summary)")
            return
        case .success:
            break
        }

        let values: [String]
        do {
            let body = try response.json()
            guard let columns = body["columns"]?.arrayValue, let rows = body["rows"]?.arrayValue else {
                state.fail(line: line, sql: query.sql, reason: "response has no columns/rows: \(response.bodyText)")
                return
            }
            guard columns.count == query.columnTypes.count else {
                state.fail(
                    line: line,
                    sql: query.sql,
                    reason: "wrong number of result columns",
                    expected: "\(query.columnTypes.count)",
                    got: "\(columns.count)"
                )
                return
            }
            if body["truncated"]?.boolValue == true {
                state.fail(line: line, sql: query.sql, reason: "result was truncated by the server's row limit")
                return
            }
            let rowArrays = try rows.map { row -> [JSONValue] in
                guard let values = row.arrayValue else {
                    throw SLTFormatter.FormatError(value: row, reason: "a row must be an array with shape=arrays")
                }
                return values
            }
            values = SLTFormatter.sort(
                try SLTFormatter.printRows(rowArrays, types: query.columnTypes),
                columnCount: query.columnTypes.count,
                mode: query.sortMode
            )
        } catch {
            state.fail(line: line, sql: query.sql, reason: "unreadable result: \(error)")
            return
        }

        let hashed = state.hashThreshold > 0 && values.count > state.hashThreshold
        if hashed {
            let gotLine = SLTFormatter.hashLine(for: values)
            let expected = query.expectedHash
            if expected?.count != values.count || expected?.md5 != SLTFormatter.md5(of: values) {
                state.fail(
                    line: line,
                    sql: query.sql,
                    reason: "wrong result hash",
                    expected: query.expectedLines.prefix(12).joined(separator: " | "),
                    got: gotLine + " [" + values.prefix(12).joined(separator: " | ") + "]"
                )
                return
            }
        } else if values != query.expectedLines {
            state.fail(
                line: line,
                sql: query.sql,
                reason: "wrong result",
                expected: Self.summarize(query.expectedLines),
                got: Self.summarize(values)
            )
            return
        }
        if let label = query.label {
            let hash = SLTFormatter.md5(of: values)
            if let previous = state.labelHashes[label], previous != hash {
                state.fail(
                    line: line,
                    sql: query.sql,
                    reason: "labeled result [\(label)] does not agree with previous values"
                )
                return
            }
            state.labelHashes[label] = hash
        }
        state.report.passed += 1
    }

    // MARK: Responses

    private enum Outcome {
        case success
        case refusedByPolicy
        case clientError(String)
        case serverError(String)
    }

    private static func outcome(of response: HTTPTestResponse) -> Outcome {
        let summary = errorSummary(response)
        switch response.status {
        case 200..<300:
            return .success
        case 403 where response.errorCode == "SQLITE_AUTH":
            return .refusedByPolicy
        case 400..<500:
            return .clientError(summary)
        default:
            return .serverError(summary)
        }
    }

    private static func isSteppingError(_ response: HTTPTestResponse) -> Bool {
        guard response.errorCode == "SQLITE_ERROR", let error = (try? response.json())?["error"] else { return false }
        return error["message"]?.stringValue == "integer overflow"
    }

    private static func errorSummary(_ response: HTTPTestResponse) -> String {
        if let error = (try? response.json())?["error"] {
            let code = error["code"]?.stringValue ?? "?"
            let message = error["message"]?.stringValue ?? ""
            return "HTTP \(response.status) \(code): \(message)"
        }
        return "HTTP \(response.status): \(String(response.bodyText.prefix(300)))"
    }

    /// An `error` member at the top level or in any `results` entry of a 2xx body.
    private static func embeddedError(in response: HTTPTestResponse) -> String? {
        guard let body = try? response.json() else { return "body is not JSON: \(response.bodyText.prefix(200))" }
        if let error = body["error"] { return error.serialized }
        for result in body["results"]?.arrayValue ?? [] {
            if let error = result["error"] { return error.serialized }
        }
        return nil
    }

    private static func summarize(_ values: [String]) -> String {
        let shown = values.prefix(24).joined(separator: " | ")
        return values.count > 24 ? "\(shown) | … (\(values.count) values)" : "[\(values.count)] \(shown)"
    }
}
