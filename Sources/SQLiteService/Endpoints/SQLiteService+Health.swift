import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `GET /health` on a handler thread: also 503 while the storage cannot serve (a cluster node that knows no
    /// leader: no statement could be served before one is elected).
    func healthResponse(_ settings: ServiceSettings) -> HTTPResponse {
        guard settings.isAvailable, let reason = store.unavailableReason() else {
            return health(isAvailable: settings.isAvailable)
        }
        return health(isAvailable: false, reason: reason)
    }

    /// `GET /health`: ok with versions, or 503 while starting or stopping (or for `reason`).
    func health(isAvailable: Bool, reason: String = "the server is starting or shutting down") -> HTTPResponse {
        guard isAvailable else {
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("status")
            writer.writeString("unavailable")
            writer.key("error")
            APIError.unavailable(reason, retryAfter: 1).write(to: &writer)
            writer.endObject()
            return Self.jsonResponse(status: 503, writer.bytes, headers: [(name: "Retry-After", value: "1")])
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.writeString("ok")
        writer.key("version")
        writer.writeString(version)
        writer.key("sqlite_version")
        writer.writeString(sqliteLibraryVersion)
        writer.endObject()
        return Self.jsonResponse(writer.bytes)
    }
}

extension APISchemas {
    /// The JSON Schema of `GET /health`'s answer (OpenAPI, ``APISchemas``).
    static let health: [(name: String, json: String)] = [
        (
            "Health",
            ##"{"type": "object", "required": ["status"], "properties": {"status": {"type": "string", "enum": ["ok", "unavailable"]}, "version": {"type": "string"}, "sqlite_version": {"type": "string"}, "error": {"$ref": "#/components/schemas/ErrorObject"}}}"##
        )
    ]
}
