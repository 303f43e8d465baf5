import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /query`: one read-only statement on a reader connection.
    func query(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> HTTPResponse {
        let request = try RequestDecoder().decodeQuery(body)
        var context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: true
        )
        let output: [UInt8] = try onReader { db throws(APIError) in
            var writer = JSONWriter()
            try db.withRequestDeadline(context.deadline) { () throws(APIError) in
                try StatementExecutor(db: db).run(request.statement, context: &context, into: &writer)
            }
            return writer.bytes
        }
        return Self.jsonResponse(output)
    }

    /// `POST /update`: one statement on the writer, in autocommit mode.
    func update(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> HTTPResponse {
        let request = try RequestDecoder().decodeUpdate(body)
        var context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: false
        )
        let output: [UInt8] = try onWriter { db throws(APIError) in
            var writer = JSONWriter()
            try db.withRequestDeadline(context.deadline) { () throws(APIError) in
                try StatementExecutor(db: db).run(request.statement, context: &context, into: &writer)
            }
            return writer.bytes
        }
        return Self.jsonResponse(output)
    }
}
