import HTTPServer
import SQLiteEngine

extension SQLiteService {
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
