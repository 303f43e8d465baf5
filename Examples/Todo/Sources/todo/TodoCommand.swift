import ArgumentParser
import Foundation
import SQLitedClient
import TodoService

/// `todo`: the example service's command line, on a sqlited server.
@main
struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "A todo list kept in sqlited (an example of the Swift client).",
        subcommands: [Add.self, List.self, Done.self, Purge.self]
    )

    struct Connection: ParsableArguments {
        @Option(help: "The sqlited server.")
        var server = "http://127.0.0.1:8080"

        @Option(help: "A bearer token with the write role (default: $SQLITED_TOKEN).")
        var token: String?

        func store() async throws -> TodoStore {
            guard let url = URL(string: server) else { throw ValidationError("not a URL: \(server)") }
            let token = token ?? ProcessInfo.processInfo.environment["SQLITED_TOKEN"]
            let store = TodoStore(client: SQLitedClient(serverURL: url, token: token))
            try await store.migrate()
            return store
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an item; prints its id.")
        @OptionGroup var connection: Connection
        @Option(help: "Your request's id: the same id twice adds one item.")
        var requestID: String?
        @Argument var title: String

        func run() async throws {
            let todo = try await connection.store().add(title, requestID: requestID)
            print(todo.id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the open items (with --all, done ones too).")
        @OptionGroup var connection: Connection
        @Flag var all = false

        func run() async throws {
            for todo in try await connection.store().list(includeDone: all) {
                print("\(todo.id)\t\(todo.done ? "[x]" : "[ ]")\t\(todo.title)")
            }
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark an item done.")
        @OptionGroup var connection: Connection
        @Argument var id: Int64

        func run() async throws {
            try await connection.store().complete(id)
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the done items; prints how many.")
        @OptionGroup var connection: Connection

        func run() async throws {
            print(try await connection.store().purgeDone())
        }
    }
}
