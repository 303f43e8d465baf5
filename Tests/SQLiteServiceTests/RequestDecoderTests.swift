import Testing

@testable import SQLiteService

enum Endpoint: String, Sendable {
    case query, update, batch, transaction
}

/// Decodes `body` for `endpoint` and returns the error, or `nil` when it decoded.
func decodeError(_ endpoint: Endpoint, _ body: String) -> APIError? {
    let bytes = Array(body.utf8)
    let decoder = RequestDecoder()
    do throws(APIError) {
        switch endpoint {
        case .query: _ = try decoder.decodeQuery(bytes)
        case .update: _ = try decoder.decodeUpdate(bytes)
        case .batch: _ = try decoder.decodeBatch(bytes)
        case .transaction: _ = try decoder.decodeTransaction(bytes)
        }
        return nil
    } catch {
        return error
    }
}

struct RejectedCase: CustomTestStringConvertible, Sendable {
    let endpoint: Endpoint
    let body: String
    let code: String
    /// Text the message must contain, when the case pins it.
    let message: String?

    init(_ endpoint: Endpoint, _ body: String, _ code: String, _ message: String? = nil) {
        self.endpoint = endpoint
        self.body = body
        self.code = code
        self.message = message
    }

    var testDescription: String { "/\(endpoint.rawValue) \(body.prefix(70))" }
}

@Suite struct RequestDecoderTests {
    let decoder = RequestDecoder()

    // MARK: - Accepted shapes

    /// A statement with positional parameters decodes every JSON value type as the Values table says.
    @Test func decodeQuery_positionalParametersFollowValuesTable() throws {
        let request = try decoder.decodeQuery(
            Array(
                #"{"sql":"SELECT ?","params":[null,true,false,7,-9223372036854775808,9223372036854775808,1.5,"t\u0000x",{"base64":"AAEC"},{"base64":""}]}"#
                    .utf8
            )
        )
        #expect(request.statement.sql == "SELECT ?")
        #expect(
            request.statement.parameters
                == .positional([
                    .null, .integer(1), .integer(0), .integer(7), .integer(.min), .real(9223372036854775808.0),
                    .real(1.5), .text("t\u{0}x"), .blob([0, 1, 2]), .blob([]),
                ])
        )
        #expect(request.options == RequestOptions())
    }

    /// Named parameters keep their keys as written and their document order.
    @Test func decodeUpdate_namedParametersKeepKeysAndOrder() throws {
        let request = try decoder.decodeUpdate(
            Array(#"{"sql":"UPDATE t SET a=:a WHERE id=$id","params":{"id":7,":a":"x","@b":null}}"#.utf8)
        )
        #expect(
            request.statement.parameters
                == .named([
                    .init(name: "id", value: .integer(7)), .init(name: ":a", value: .text("x")),
                    .init(name: "@b", value: .null),
                ])
        )
    }

    /// Without params the statement has no parameters; empty params are kept as given.
    @Test func decodeQuery_absentAndEmptyParams() throws {
        #expect(try decoder.decodeQuery(Array(#"{"sql":"SELECT 1"}"#.utf8)).statement.parameters == .none)
        #expect(
            try decoder.decodeQuery(Array(#"{"sql":"SELECT 1","params":[]}"#.utf8)).statement.parameters
                == .positional([])
        )
        #expect(
            try decoder.decodeQuery(Array(#"{"sql":"SELECT 1","params":{}}"#.utf8)).statement.parameters == .named([])
        )
    }

    /// params_batch holds positional and named sets in order; it is accepted on /query too.
    @Test(arguments: [Endpoint.update, .query])
    func decode_paramsBatch(_ endpoint: Endpoint) throws {
        let body = Array(#"{"sql":"INSERT INTO t VALUES (?)","params_batch":[["ann"],{"name":"bob"},[]]}"#.utf8)
        let statement =
            endpoint == .update ? try decoder.decodeUpdate(body).statement : try decoder.decodeQuery(body).statement
        #expect(
            statement.parameters
                == .batch([
                    .positional([.text("ann")]), .named([.init(name: "name", value: .text("bob"))]), .positional([]),
                ])
        )
    }

    /// All four options decode at the top level of any request.
    @Test func decode_options() throws {
        let options = #""shape":"arrays","int64_as_string":true,"max_rows":0,"timeout_ms":1"#
        let expected = RequestOptions(shape: .arrays, int64AsString: true, maxRows: 0, timeoutMs: 1)
        #expect(try decoder.decodeQuery(Array(#"{"sql":"SELECT 1",\#(options)}"#.utf8)).options == expected)
        #expect(try decoder.decodeUpdate(Array(#"{\#(options),"sql":"SELECT 1"}"#.utf8)).options == expected)
        #expect(try decoder.decodeBatch(Array(#"{"script":"SELECT 1",\#(options)}"#.utf8)).options == expected)
        #expect(
            try decoder.decodeTransaction(Array(#"{"statements":[{"sql":"SELECT 1"}],\#(options)}"#.utf8)).options
                == expected
        )
        let large = try decoder.decodeQuery(
            Array(
                #"{"sql":"x","shape":"objects","int64_as_string":false,"max_rows":9223372036854775807,"timeout_ms":5000}"#
                    .utf8
            )
        )
        #expect(large.options == RequestOptions(shape: .objects, int64AsString: false, maxRows: .max, timeoutMs: 5000))
    }

    /// A batch of statements decodes in order, with continue_on_error.
    @Test func decodeBatch_statements() throws {
        let request = try decoder.decodeBatch(
            Array(
                #"{"statements":[{"sql":"CREATE TABLE a(x)"},{"sql":"INSERT INTO a VALUES (?)","params":[1]}],"continue_on_error":true}"#
                    .utf8
            )
        )
        #expect(
            request.body
                == .statements([
                    StatementRequest(sql: "CREATE TABLE a(x)"),
                    StatementRequest(sql: "INSERT INTO a VALUES (?)", parameters: .positional([.integer(1)])),
                ])
        )
        #expect(request.continueOnError)
    }

    /// A script batch decodes; continue_on_error defaults to false.
    @Test func decodeBatch_script() throws {
        let request = try decoder.decodeBatch(Array(#"{"script":"CREATE TABLE a(x); SELECT 1;"}"#.utf8))
        #expect(request.body == .script("CREATE TABLE a(x); SELECT 1;"))
        #expect(!request.continueOnError)
    }

    /// A transaction decodes its statements; mode defaults to immediate and accepts the three modes.
    @Test func decodeTransaction_modes() throws {
        let statements = #""statements":[{"sql":"INSERT INTO a VALUES (1)"},{"sql":"SAVEPOINT s"}]"#
        let request = try decoder.decodeTransaction(Array("{\(statements)}".utf8))
        #expect(request.statements.map(\.sql) == ["INSERT INTO a VALUES (1)", "SAVEPOINT s"])
        #expect(request.mode == .immediate)
        #expect(request.mode.beginSQL == "BEGIN IMMEDIATE")
        for mode in [TransactionRequest.Mode.deferred, .immediate, .exclusive] {
            let decoded = try decoder.decodeTransaction(Array(#"{\#(statements),"mode":"\#(mode.rawValue)"}"#.utf8))
            #expect(decoded.mode == mode)
        }
        #expect(TransactionRequest.Mode.deferred.beginSQL == "BEGIN DEFERRED")
        #expect(TransactionRequest.Mode.exclusive.beginSQL == "BEGIN EXCLUSIVE")
    }

    // MARK: - Rejected shapes

    static let rejectedCases: [RejectedCase] = [
        // Not JSON, or not an object.
        RejectedCase(.query, "", "INVALID_JSON", "byte 0"),
        RejectedCase(.query, "{\"sql\":\"x\",}", "INVALID_JSON", "byte 11"),
        RejectedCase(.update, "{\"sql\":\"x\"} {}", "INVALID_JSON"),
        RejectedCase(.batch, "{\"script\":\"x\",\"script\":\"y\"}", "INVALID_JSON", "duplicate"),
        RejectedCase(.transaction, "\u{FEFF}{}", "INVALID_JSON", "byte order mark"),
        RejectedCase(.query, "[]", "INVALID_REQUEST", "must be a JSON object"),
        RejectedCase(.update, "\"SELECT 1\"", "INVALID_REQUEST", "must be a JSON object"),
        RejectedCase(.batch, "null", "INVALID_REQUEST", "must be a JSON object"),
        RejectedCase(.transaction, "1", "INVALID_REQUEST", "must be a JSON object"),
        // sql.
        RejectedCase(.query, "{}", "INVALID_REQUEST", "missing \"sql\""),
        RejectedCase(.update, "{\"params\":[1]}", "INVALID_REQUEST", "missing \"sql\""),
        RejectedCase(.query, "{\"sql\":1}", "INVALID_REQUEST", "\"sql\" must be a string"),
        RejectedCase(.query, "{\"sql\":null}", "INVALID_REQUEST", "\"sql\" must be a string"),
        RejectedCase(.update, "{\"sql\":[\"SELECT 1\"]}", "INVALID_REQUEST", "\"sql\" must be a string"),
        RejectedCase(.update, "{\"sql\":\"SELECT 1\\u0000; DROP TABLE t\"}", "INVALID_REQUEST", "U+0000"),
        // Unknown keys.
        RejectedCase(.query, "{\"sql\":\"x\",\"param\":[1]}", "INVALID_REQUEST", "unknown key \"param\""),
        RejectedCase(.update, "{\"sql\":\"x\",\"statements\":[]}", "INVALID_REQUEST", "unknown key \"statements\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"SQL\":\"y\"}", "INVALID_REQUEST", "unknown key \"SQL\""),
        RejectedCase(.batch, "{\"script\":\"x\",\"mode\":\"immediate\"}", "INVALID_REQUEST", "unknown key \"mode\""),
        RejectedCase(.batch, "{\"script\":\"x\",\"sql\":\"y\"}", "INVALID_REQUEST", "unknown key \"sql\""),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"}],\"continue_on_error\":true}",
            "INVALID_REQUEST",
            "unknown key \"continue_on_error\""
        ),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"}],\"script\":\"y\"}",
            "INVALID_REQUEST",
            "unknown key \"script\""
        ),
        RejectedCase(
            .batch,
            "{\"statements\":[{\"sql\":\"x\",\"shape\":\"arrays\"}]}",
            "INVALID_REQUEST",
            "statements[0]: unknown key \"shape\""
        ),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"},{\"sql\":\"y\",\"extra\":1}]}",
            "INVALID_REQUEST",
            "statements[1]: unknown key \"extra\""
        ),
        // params / params_batch.
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"params\":[1],\"params_batch\":[[1]]}",
            "INVALID_REQUEST",
            "cannot be used together"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":1}",
            "INVALID_REQUEST",
            "\"params\" must be an array or an object"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":\"1\"}",
            "INVALID_REQUEST",
            "\"params\" must be an array or an object"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":null}",
            "INVALID_REQUEST",
            "\"params\" must be an array or an object"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":[]}",
            "INVALID_REQUEST",
            "\"params_batch\" must not be empty"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":{\"a\":1}}",
            "INVALID_REQUEST",
            "\"params_batch\" must be an array"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":[[1],2]}",
            "INVALID_REQUEST",
            "\"params_batch[1]\" must be an array or an object"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":[null]}",
            "INVALID_REQUEST",
            "\"params_batch[0]\" must be an array or an object"
        ),
        // Parameter values that cannot be bound.
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"params\":[1,[2]]}",
            "BIND_ERROR",
            "parameter 2: an array cannot be bound"
        ),
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"params\":[{\"a\":1}]}",
            "BIND_ERROR",
            "parameter 1: an object cannot be bound"
        ),
        RejectedCase(.query, "{\"sql\":\"x\",\"params\":[{}]}", "BIND_ERROR", "parameter 1: an object"),
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"params\":{\"id\":{\"base64\":\"AA==\",\"x\":1}}}",
            "BIND_ERROR",
            "parameter :id: an object"
        ),
        RejectedCase(.query, "{\"sql\":\"x\",\"params\":{\"$id\":[]}}", "BIND_ERROR", "parameter $id: an array"),
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"params\":{\"@v\":{\"BASE64\":\"AA==\"}}}",
            "BIND_ERROR",
            "parameter @v: an object"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":[{\"base64\":1}]}",
            "BIND_ERROR",
            "parameter 1: \"base64\" must be a string"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":[{\"base64\":null}]}",
            "BIND_ERROR",
            "parameter 1: \"base64\" must be a string"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":[1,2,{\"base64\":\"AAE\"}]}",
            "BIND_ERROR",
            "parameter 3: invalid base64"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":[{\"base64\":\"AA AA\"}]}",
            "BIND_ERROR",
            "parameter 1: invalid base64"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params\":[{\"base64\":\"AB==\"}]}",
            "BIND_ERROR",
            "parameter 1: invalid base64"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":[[1],[2,[3]]]}",
            "BIND_ERROR",
            "params_batch[1]: parameter 2: an array"
        ),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"params_batch\":[{\"k\":{\"n\":1}}]}",
            "BIND_ERROR",
            "params_batch[0]: parameter :k: an object"
        ),
        // Options.
        RejectedCase(.query, "{\"sql\":\"x\",\"shape\":\"rows\"}", "INVALID_REQUEST", "\"shape\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"shape\":\"Arrays\"}", "INVALID_REQUEST", "\"shape\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"shape\":1}", "INVALID_REQUEST", "\"shape\""),
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"int64_as_string\":1}",
            "INVALID_REQUEST",
            "\"int64_as_string\" must be a boolean"
        ),
        RejectedCase(.query, "{\"sql\":\"x\",\"int64_as_string\":\"true\"}", "INVALID_REQUEST", "\"int64_as_string\""),
        RejectedCase(
            .query,
            "{\"sql\":\"x\",\"max_rows\":-1}",
            "INVALID_REQUEST",
            "\"max_rows\" must be an integer >= 0"
        ),
        RejectedCase(.query, "{\"sql\":\"x\",\"max_rows\":1.5}", "INVALID_REQUEST", "\"max_rows\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"max_rows\":10.0}", "INVALID_REQUEST", "\"max_rows\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"max_rows\":\"10\"}", "INVALID_REQUEST", "\"max_rows\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"max_rows\":null}", "INVALID_REQUEST", "\"max_rows\""),
        RejectedCase(.query, "{\"sql\":\"x\",\"max_rows\":9223372036854775808}", "INVALID_REQUEST", "\"max_rows\""),
        RejectedCase(
            .update,
            "{\"sql\":\"x\",\"timeout_ms\":0}",
            "INVALID_REQUEST",
            "\"timeout_ms\" must be an integer >= 1"
        ),
        RejectedCase(.update, "{\"sql\":\"x\",\"timeout_ms\":-5}", "INVALID_REQUEST", "\"timeout_ms\""),
        RejectedCase(.update, "{\"sql\":\"x\",\"timeout_ms\":1e3}", "INVALID_REQUEST", "\"timeout_ms\""),
        RejectedCase(.batch, "{\"script\":\"x\",\"timeout_ms\":true}", "INVALID_REQUEST", "\"timeout_ms\""),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"}],\"max_rows\":[]}",
            "INVALID_REQUEST",
            "\"max_rows\""
        ),
        // Batch.
        RejectedCase(.batch, "{}", "INVALID_REQUEST", "missing \"statements\" or \"script\""),
        RejectedCase(.batch, "{\"continue_on_error\":true}", "INVALID_REQUEST", "missing \"statements\" or \"script\""),
        RejectedCase(
            .batch,
            "{\"statements\":[{\"sql\":\"x\"}],\"script\":\"y\"}",
            "INVALID_REQUEST",
            "cannot be used together"
        ),
        RejectedCase(.batch, "{\"statements\":[]}", "INVALID_REQUEST", "\"statements\" must not be empty"),
        RejectedCase(.batch, "{\"statements\":{\"sql\":\"x\"}}", "INVALID_REQUEST", "\"statements\" must be an array"),
        RejectedCase(
            .batch,
            "{\"statements\":[\"SELECT 1\"]}",
            "INVALID_REQUEST",
            "statements[0]: must be a statement object"
        ),
        RejectedCase(
            .batch,
            "{\"statements\":[{\"sql\":\"x\"},{}]}",
            "INVALID_REQUEST",
            "statements[1]: missing \"sql\""
        ),
        RejectedCase(.batch, "{\"script\":1}", "INVALID_REQUEST", "\"script\" must be a string"),
        RejectedCase(.batch, "{\"script\":\"SELECT 1;\\u0000DROP TABLE t\"}", "INVALID_REQUEST", "U+0000"),
        RejectedCase(
            .batch,
            "{\"script\":\"x\",\"continue_on_error\":\"yes\"}",
            "INVALID_REQUEST",
            "\"continue_on_error\" must be a boolean"
        ),
        RejectedCase(
            .batch,
            "{\"script\":\"x\",\"continue_on_error\":null}",
            "INVALID_REQUEST",
            "\"continue_on_error\""
        ),
        RejectedCase(
            .batch,
            "{\"statements\":[{\"sql\":\"a\"},{\"sql\":\"b\"},{\"sql\":\"c\"},{\"sql\":\"d\"},{\"sql\":\"e\"},{\"sql\":\"f\",\"params\":[[1]]}]}",
            "BIND_ERROR",
            "statements[5]: parameter 1: an array"
        ),
        RejectedCase(
            .batch,
            "{\"statements\":[{\"sql\":\"a\"},{\"sql\":\"b\",\"params\":[1],\"params_batch\":[[1]]}]}",
            "INVALID_REQUEST",
            "statements[1]: \"params\" and \"params_batch\""
        ),
        // Transaction.
        RejectedCase(.transaction, "{}", "INVALID_REQUEST", "missing \"statements\""),
        RejectedCase(.transaction, "{\"mode\":\"deferred\"}", "INVALID_REQUEST", "missing \"statements\""),
        RejectedCase(.transaction, "{\"statements\":[]}", "INVALID_REQUEST", "\"statements\" must not be empty"),
        RejectedCase(.transaction, "{\"statements\":null}", "INVALID_REQUEST", "\"statements\" must be an array"),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"}],\"mode\":\"IMMEDIATE\"}",
            "INVALID_REQUEST",
            "\"mode\""
        ),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"}],\"mode\":\"exclusive \"}",
            "INVALID_REQUEST",
            "\"mode\""
        ),
        RejectedCase(.transaction, "{\"statements\":[{\"sql\":\"x\"}],\"mode\":1}", "INVALID_REQUEST", "\"mode\""),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"x\"},5]}",
            "INVALID_REQUEST",
            "statements[1]: must be a statement object"
        ),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"a\"},{\"sql\":\"b\"},{\"sql\":\"c\"},{\"sql\":\"d\"},{\"sql\":\"e\"},{\"sql\":7}]}",
            "INVALID_REQUEST",
            "statements[5]: \"sql\" must be a string"
        ),
        RejectedCase(
            .transaction,
            "{\"statements\":[{\"sql\":\"a\",\"params_batch\":[[1],[{\"x\":1}]]}]}",
            "BIND_ERROR",
            "statements[0]: params_batch[1]: parameter 1: an object"
        ),
    ]

    /// Every malformed request is refused with the contract's code, a 400 status, and a message that locates it.
    @Test(arguments: rejectedCases)
    func decode_rejectsMalformedRequest(_ testCase: RejectedCase) throws {
        let error = try #require(decodeError(testCase.endpoint, testCase.body))
        #expect(error.code == testCase.code)
        #expect(error.status == 400)
        #expect(error.sqliteCode == nil)
        #expect(error.statementIndex == nil)
        #expect(error.rolledBack == nil)
        if let message = testCase.message {
            #expect(error.message.contains(message), "message: \(error.message)")
        }
    }

    /// Error messages name parameters but never contain the values that were sent.
    @Test func decode_errorMessagesNeverContainValues() throws {
        let bodies: [(Endpoint, String)] = [
            (.query, #"{"sql":"x","params":[["s3cr3t-value"]]}"#),
            (.query, #"{"sql":"x","params":{"p":{"s3cr3t-value":1}}}"#),
            (.query, #"{"sql":"x","params":{"p":{"base64":"s3cr3t-value"}}}"#),
            (.update, #"{"sql":"x","params_batch":[["ok"],["s3cr3t-value",[1]]]}"#),
            (.query, #"{"sql":"x","max_rows":"s3cr3t-value"}"#),
            (.query, #"{"sql":"x","params":["s3cr3t-value"],}"#),
            (.batch, #"{"script":"x","shape":"s3cr3t-value"}"#),
        ]
        for (endpoint, body) in bodies {
            let error = try #require(decodeError(endpoint, body))
            #expect(!error.message.contains("s3cr3t"), "\(error.message)")
            #expect(!String(decoding: error.body, as: UTF8.self).contains("s3cr3t"))
        }
    }

    /// A very long unknown key is cut short in the message.
    @Test func decode_truncatesLongUnknownKey() throws {
        let key = String(repeating: "k", count: 10_000)
        let error = try #require(decodeError(.query, #"{"sql":"x","\#(key)":1}"#))
        #expect(error.code == "INVALID_REQUEST")
        #expect(error.message.count < 300)
    }

    /// The nesting limit applies to request bodies and gives INVALID_JSON.
    @Test func decode_deeplyNestedParamsGiveInvalidJSON() throws {
        let nested = String(repeating: "[", count: 100_000)
        let error = try #require(decodeError(.query, #"{"sql":"x","params":\#(nested)"#))
        #expect(error.code == "INVALID_JSON")
        #expect(error.message.contains("nesting too deep"))
    }
}
