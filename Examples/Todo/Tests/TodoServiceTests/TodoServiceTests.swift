import Foundation
import SQLitedClient
import SQLitedTestSupport
import Testing
import TodoService

/// The example service against the real server: its store, and its `todo` command as a user runs it.
@Suite struct TodoServiceTests {
    @Test func theStoreKeepsItsTodos() async throws {
        let server = try SqlitedServer()
        let store = TodoStore(client: SQLitedClient(serverURL: server.url))
        try await store.migrate()
        try await store.migrate()  // safe on every start
        let milk = try await store.add("buy milk")
        let bread = try await store.add("bake bread")
        #expect(milk.title == "buy milk" && !milk.done && milk.created > 1_700_000_000)
        try await store.complete(milk.id)
        #expect(try await store.list().map(\.id) == [bread.id])
        #expect(try await store.list(includeDone: true).map(\.title) == ["bake bread", "buy milk"])
        await #expect(throws: TodoError.notFound(999)) { try await store.complete(999) }
        #expect(try await store.purgeDone() == 1)
        #expect(try await store.list(includeDone: true).map(\.id) == [bread.id])
    }

    /// The same request id twice adds one item: the second `add` is the server's replay of the first
    /// (`Idempotency-Key`), so a caller that retries after a lost answer never adds it twice.
    @Test func aRetriedAddAddsOnce() async throws {
        let server = try SqlitedServer()
        let store = TodoStore(client: SQLitedClient(serverURL: server.url))
        try await store.migrate()
        let first = try await store.add("pay the invoice", requestID: "req-7")
        let again = try await store.add("pay the invoice", requestID: "req-7")
        #expect(again == first)
        let other = try await store.add("pay the invoice", requestID: "req-8")
        #expect(other.id != first.id)
        #expect(try await store.list().map(\.id) == [first.id, other.id])
    }

    /// The table's CHECK refuses an empty title: the server's error reaches the service with its code.
    @Test func anInvalidTodoIsRefusedByTheDatabase() async throws {
        let server = try SqlitedServer()
        let store = TodoStore(client: SQLitedClient(serverURL: server.url))
        try await store.migrate()
        let error = await #expect(throws: SQLitedError.self) { try await store.add("") }
        #expect(error?.status == 409 && error?.code == "SQLITE_CONSTRAINT_CHECK")
        #expect(try await store.list(includeDone: true).isEmpty)
    }

    /// The `todo` command, as built beside this test, against a server with tokens.
    @Test func theCommandLine() async throws {
        let server = try SqlitedServer(tokens: ["todo:write:todo-service-token-0001"])
        let connection = ["--server", server.url.absoluteString, "--token", "todo-service-token-0001"]
        let first = try run(["add"] + connection + ["write the report"])
        let second = try run(["add"] + connection + ["send it, \"today\""])
        #expect(first.status == 0 && second.status == 0)
        _ = try run(["done"] + connection + [first.output.trimmingCharacters(in: .whitespacesAndNewlines)])
        let id = second.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try run(["list"] + connection).output == "\(id)\t[ ]\tsend it, \"today\"\n")
        #expect(try run(["purge"] + connection).output == "1\n")
        let refused = try run(["list", "--server", server.url.absoluteString])
        #expect(refused.status != 0 && refused.error.contains("401 UNAUTHORIZED"))
    }

    /// Runs the `todo` executable built beside this test bundle.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let process = Process()
        process.executableURL = directory.appendingPathComponent("todo")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "SQLITED_TOKEN" }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
