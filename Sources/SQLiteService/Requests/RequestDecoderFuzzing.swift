/// Properties of the request decoder that must hold for any input, checked by the libFuzzer target
/// (`Fuzz/JSONRequestFuzz`) and by the regression test that replays its findings.
///
/// A violated property traps, which is how libFuzzer learns about it. The properties:
/// - decoding never crashes, and answers the same way when repeated;
/// - a refused body gets 400 with `INVALID_JSON`, `INVALID_REQUEST` or `BIND_ERROR` and a short message;
/// - `/query` and `/update` accept exactly the same bodies, with the same result;
/// - a body the one-pass reading takes (``SimpleStatementBody``) decodes the same by the general path;
/// - a parsed document written back with ``JSONWriter`` parses to an equal value and decodes the same way;
/// - an accepted request has no `sql` with U+0000, no empty `statements` or `params_batch`.
public enum RequestDecoderFuzzing {
    /// The longest error message a decoder may produce: messages name keys (cut to 64 characters) and positions,
    /// never values, so they stay short whatever the input.
    static let maxMessageLength = 1024

    /// Checks every property on `input`; traps when one does not hold.
    public static func check(_ input: [UInt8]) {
        let decoder = RequestDecoder()
        let query = outcome { () throws(APIError) in try decoder.decodeQuery(input) }
        let update = outcome { () throws(APIError) in try decoder.decodeUpdate(input) }
        let batch = outcome { () throws(APIError) in try decoder.decodeBatch(input) }
        let transaction = outcome { () throws(APIError) in try decoder.decodeTransaction(input) }
        let errors = [query.failure, update.failure, batch.failure, transaction.failure]
        for error in errors { if let error { checkError(error) } }
        // The same grammar for both single-statement endpoints.
        precondition(describe(query.map(\.statement)) == describe(update.map(\.statement)), "query/update differ")
        precondition(
            describe(query) == describe(outcome { () throws(APIError) in try decoder.decodeQuery(input) }),
            "decoding is not deterministic"
        )

        if let simple = SimpleStatementBody.decode(input) {
            let general = outcome { () throws(APIError) in try decoder.decodeQueryInGeneral(input) }
            precondition(describe(general.map(\.statement)) == describe(.success(simple)), "one-pass reading differs")
        }

        if case .success(let request) = query { checkStatement(request.statement) }
        if case .success(let request) = transaction { request.statements.forEach(checkStatement) }
        if case .success(let request) = batch {
            switch request.body {
            case .statements(let statements): statements.forEach(checkStatement)
            case .script(let script): precondition(!script.utf8.contains(0), "script with U+0000 accepted")
            }
        }

        // Round trip through the writer: same value, same decoding.
        guard let value = try? decoder.parser.parse(input) else { return }
        var writer = JSONWriter()
        writer.write(value)
        let rewritten = writer.bytes
        guard let reparsed = try? decoder.parser.parse(rewritten) else {
            preconditionFailure("the writer produced JSON the parser refuses")
        }
        precondition(reparsed == value, "the value changed through the writer")
        let again = outcome { () throws(APIError) in try decoder.decodeTransaction(rewritten) }
        precondition(describe(again) == describe(transaction), "decoding changed through the writer")
    }

    private static func outcome<T>(_ body: () throws(APIError) -> T) -> Result<T, APIError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    private static func describe<T>(_ result: Result<T, APIError>) -> String {
        switch result {
        case .success(let value): "ok \(value)"
        case .failure(let error): "error \(error.code) \(error.message)"
        }
    }

    private static func checkError(_ error: APIError) {
        precondition(error.status == 400, "status \(error.status) for a refused body")
        precondition(["INVALID_JSON", "INVALID_REQUEST", "BIND_ERROR"].contains(error.code), "code \(error.code)")
        precondition(error.message.utf8.count <= maxMessageLength, "message of \(error.message.utf8.count) bytes")
        precondition(error.statementIndex == nil, "a validation error carries a statement index")
    }

    private static func checkStatement(_ statement: StatementRequest) {
        precondition(!statement.sql.utf8.contains(0), "sql with U+0000 accepted")
        if case .batch(let sets) = statement.parameters {
            precondition(!sets.isEmpty, "empty params_batch accepted")
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
