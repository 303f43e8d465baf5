import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /update`: one statement, in autocommit mode (on the local writer inside a group, in its own savepoint).
    func update(_ body: [UInt8], limits: ServiceLimits) throws(APIError) -> StorageWrite {
        let request = try RequestDecoder().decodeUpdate(body)
        let context = RequestContext(
            options: request.options,
            limits: limits,
            allowsSavepoints: false,
            requiresReadOnly: false
        )
        var write = StorageWrite(deadline: context.deadline, bytes: body.count) { session throws(APIError) in
            // A copy per run: the body may run again (see StorageWrite).
            var context = context
            var writer = JSONWriter()
            try session.runWhole(sql: request.statement.sql) { (session) throws(APIError) in
                try session.run(request.statement, context: &context, into: &writer)
            }
            return Self.jsonResponse(writer.bytes)
        }
        write.isOneStatement = true
        return write
    }
}
