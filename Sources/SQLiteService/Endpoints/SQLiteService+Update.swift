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
            try session.run(request.statement, context: &context, into: &writer)
            return Self.jsonResponse(writer.bytes)
        }
        // `OR FAIL` keeps what a failing statement did before it failed: such a statement needs its savepoint.
        write.isOneStatement = !request.statement.sql.lowercased().contains("fail")
        return write
    }
}
