import ArgumentParser
import Foundation
import SQLiteService

/// `sqlited openapi`: prints the OpenAPI 3.1 document `GET /openapi.json` serves, without starting a server.
///
/// The document is made from the route table, so this is the same document as a running server's (byte for byte,
/// for the same version). `make client` generates the Swift client (`Clients/Swift`) from it.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the OpenAPI 3.1 document of the API (what GET /openapi.json serves).",
        discussion: "See docs/api.md and docs/clients.md."
    )

    func run() throws {
        FileHandle.standardOutput.write(Data(SQLiteService.openAPIDocument(version: SqlitedCommand.version)))
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
