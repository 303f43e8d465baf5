import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `GET /schema`: tables, indexes, views and triggers, without SQLite's internal objects.
    func schemaResponse(_ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        Self.jsonResponse(
            try store.readSchema(metrics: settings.options.metrics) { db throws(APIError) in
                try Self.schemaBody(db)
            }
        )
    }

    /// The body of `GET /schema`, read on `db` (inside one read transaction).
    static func schemaBody(_ db: Database) throws(APIError) -> [UInt8] {
        let objects: [SchemaObject]
        do {
            objects = try db.schema()
        } catch {
            throw APIError(error, db: db)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("objects")
        writer.beginArray()
        // The server's own tables (a cluster's cursor key) are nobody's business but the server's.
        for object in objects where !object.isInternal && !SQLPolicy.isServerTable(object.tblName) {
            writer.beginObject()
            writer.key("type")
            writer.writeString(object.type)
            writer.key("name")
            writer.writeString(object.name)
            writer.key("tbl_name")
            writer.writeString(object.tblName)
            writer.key("sql")
            if let sql = object.sql { writer.writeString(sql) } else { writer.writeNull() }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `GET /schema/{table}`: the columns of one table or view, matched
    /// case-insensitively and never spliced into SQL; 404 when it does not exist.
    func tableSchemaResponse(_ name: String, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        Self.jsonResponse(
            try store.readSchema(metrics: settings.options.metrics) { db throws(APIError) in
                try Self.tableSchemaBody(name, db)
            }
        )
    }

    /// The body of `GET /schema/{table}` for the table `name`, read on `db` (inside one read transaction).
    static func tableSchemaBody(_ name: String, _ db: Database) throws(APIError) -> [UInt8] {
        let storedName: String?
        let columns: [ColumnInfo]?
        do {
            storedName = try db.string(
                sql: """
                    SELECT name FROM sqlite_schema
                    WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    """,
                arguments: [.text(name)]
            )
            columns = try storedName.flatMap { try db.tableInfo($0) }
        } catch {
            throw APIError(error, db: db)
        }
        guard let storedName, let columns, !SQLPolicy.isServerTable(storedName) else {
            throw .noSuchTable("no table named '\(SQLiteService.clipped(name))'")
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("name")
        writer.writeString(storedName)
        writer.key("columns")
        writer.beginArray()
        for column in columns {
            writer.beginObject()
            writer.key("cid")
            writer.writeInt64(Int64(column.cid), asStringIfUnsafe: false)
            writer.key("name")
            writer.writeString(column.name)
            writer.key("type")
            writer.writeString(column.type)
            writer.key("notnull")
            writer.writeInt64(column.notNull ? 1 : 0, asStringIfUnsafe: false)
            writer.key("default")
            if let value = column.defaultValue { writer.writeString(value) } else { writer.writeNull() }
            writer.key("pk")
            writer.writeInt64(Int64(column.primaryKeyIndex), asStringIfUnsafe: false)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// A client-supplied name cut short for an error message.
    static func clipped(_ text: String) -> String {
        let scalars = text.unicodeScalars.prefix(100).filter { $0.value >= 0x20 && $0.value != 0x7F }
        return String(String.UnicodeScalarView(scalars))
    }
}

extension APISchemas {
    /// The JSON Schemas of `GET /schema` and `GET /schema/{table}` (OpenAPI, ``APISchemas``).
    static let schema: [(name: String, json: String)] = [
        (
            "Schema",
            ##"{"type": "object", "required": ["objects"], "properties": {"objects": {"type": "array", "items": {"type": "object", "required": ["type", "name", "tbl_name", "sql"], "properties": {"type": {"type": "string"}, "name": {"type": "string"}, "tbl_name": {"type": "string"}, "sql": {"type": ["string", "null"]}}}}}}"##
        ),
        (
            "TableSchema",
            ##"{"type": "object", "required": ["name", "columns"], "properties": {"name": {"type": "string"}, "columns": {"type": "array", "items": {"$ref": "#/components/schemas/Column"}}}}"##
        ),
    ]
}
