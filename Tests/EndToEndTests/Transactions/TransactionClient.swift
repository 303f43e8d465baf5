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

    /// Increments the counter `n` of row 1 of `table` once through a transaction (open, read, add one here, write,
    /// commit), trying again from the start on 503 (the writer busy) and on a transaction lost meanwhile; returns
    /// the tries it took.
    @discardableResult
    func incrementInTransaction(table: String) throws -> Int {
        var tries = 0
        while true {
            tries += 1
            let opened = try openTransaction()
            if opened.status == 503 { continue }
            try #require(opened.status == 201, "\(opened.bodyText)")
            let id = try #require(try opened.json()["id"]?.stringValue)
            let read = try step(id, #"{"sql": "SELECT n FROM \#(table) WHERE id = 1", "shape": "arrays"}"#)
            guard read.status == 200, let n = try read.json()["rows"]?[0]?[0]?.int64Value else { continue }
            let write = try step(id, #"{"sql": "UPDATE \#(table) SET n = ? WHERE id = 1", "params": [\#(n + 1)]}"#)
            guard write.status == 200 else { continue }
            let commit = try end(id)
            if commit.status == 200 { return tries }
            try #require(commit.status == 503 || commit.status == 404, "\(commit.bodyText)")
        }
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
