import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Turns every answer that is not 2xx into a thrown ``SQLitedError`` made from the contract's error body, so that
/// ``SQLitedClient``'s methods handle only success.
struct ErrorBodyMiddleware: ClientMiddleware {
    /// The most bytes of an error body read.
    static let bodyLimit = 1024 * 1024

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, responseBody) }
        var bytes = Data()
        if let responseBody { bytes = try await Data(collecting: responseBody, upTo: Self.bodyLimit) }
        throw Self.error(status: response.status.code, body: bytes)
    }

    /// The error `body` (`{"error": {...}}`) describes; a body that is not one still gives the status.
    static func error(status: Int, body: Data) -> SQLitedError {
        struct Envelope: Decodable {
            struct Object: Decodable {
                var code: String
                var message: String
                var sqlite_code: Int?
                var statement_index: Int?
            }
            var error: Object
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else {
            return SQLitedError(status: status, code: "HTTP_\(status)", message: String(decoding: body, as: UTF8.self))
        }
        let object = envelope.error
        return SQLitedError(
            status: status,
            code: object.code,
            message: object.message,
            sqliteCode: object.sqlite_code,
            statementIndex: object.statement_index
        )
    }
}
