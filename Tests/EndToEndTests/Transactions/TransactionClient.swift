import Foundation
import Testing

/// `/transactions` from an end-to-end test's client.
extension HTTPTestClient {
    /// `POST /transactions` with `json` (nil: no body); the response.
    func openTransaction(_ json: String? = nil) throws -> HTTPTestResponse {
        if let json { return try postJSON("/transactions", text: json) }
        return try request(method: "POST", path: "/transactions")
    }

    /// Opens a transaction and requires 201; its ID.
    func openTransactionID(_ json: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let response = try openTransaction(json)
        try #require(response.status == 201, "\(response.bodyText)", sourceLocation: sourceLocation)
        return try #require(try response.json()["id"]?.stringValue, sourceLocation: sourceLocation)
    }

    /// `POST /transactions/{id}` with a statement object or `{"statements": [...]}`.
    func step(_ id: String, _ json: String) throws -> HTTPTestResponse {
        try postJSON("/transactions/\(id)", text: json)
    }

    /// `POST /transactions/{id}/commit` (or `rollback`), without a body.
    func end(_ id: String, _ action: String = "commit", headers: [(String, String)] = []) throws -> HTTPTestResponse {
        try request(method: "POST", path: "/transactions/\(id)/\(action)", headers: headers)
    }
}

/// Starts `sqlited` on `directory`'s `db.sqlite` with `SQLITED_*` settings added to the environment.
func startTransactionServer(
    _ directory: TemporaryDirectory,
    environment: [String: String] = [:],
    extraArguments: [String] = []
) throws -> ServerProcess {
    try ServerProcess(
        executableURL: TestPaths.builtProduct(named: "sqlited"),
        arguments: ["--database", directory.path("db.sqlite").path, "--host", "127.0.0.1", "--port", "0"]
            + extraArguments,
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }
    )
}
