import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `GET /health`: ok with versions, or 503 while starting or stopping.
    func health(isAvailable: Bool) -> HTTPResponse {
        guard isAvailable else {
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("status")
            writer.writeString("unavailable")
            writer.key("error")
            APIError.unavailable("the server is starting or shutting down", retryAfter: 1).write(to: &writer)
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
