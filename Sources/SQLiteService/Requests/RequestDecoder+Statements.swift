import Glibc

extension RequestDecoder {
    /// Decodes `"statements"`: a non-empty array of statement objects, each with only statement keys.
    static func decodeStatementList(_ value: JSONValue) throws(APIError) -> [StatementRequest] {
        guard case .array(let elements) = value else {
            throw .invalidRequest("\"statements\" must be an array, not \(value.typeName)")
        }
        guard !elements.isEmpty else { throw .invalidRequest("\"statements\" must not be empty") }
        var statements: [StatementRequest] = []
        statements.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let context = "statements[\(index)]"
            guard case .object(let object) = element else {
                throw .invalidRequest("\(context): must be a statement object, not \(element.typeName)")
            }
            try checkKeys(of: object, allowed: statementKeys, context: context)
            statements.append(try decodeStatement(object, context: context))
        }
        return statements
    }

    /// Decodes the statement keys of `object` (`sql`, `params`, `params_batch`); the caller has checked the keys.
    static func decodeStatement(_ object: JSONObject, context: String?) throws(APIError) -> StatementRequest {
        guard let sqlValue = object["sql"] else { throw .invalidRequest(located("missing \"sql\"", in: context)) }
        guard case .string(let sql) = sqlValue else {
            throw .invalidRequest(located("\"sql\" must be a string, not \(sqlValue.typeName)", in: context))
        }
        // sqlite3_prepare stops at a NUL byte, so whatever follows it would be silently ignored.
        guard !containsNUL(sql) else {
            throw .invalidRequest(located("\"sql\" must not contain U+0000", in: context))
        }

        switch (object["params"], object["params_batch"]) {
        case (_?, _?):
            throw .invalidRequest(located("\"params\" and \"params_batch\" cannot be used together", in: context))
        case (nil, nil):
            return StatementRequest(sql: sql, parameters: .none)
        case (let params?, nil):
            let parameters: StatementRequest.Parameters
            switch try decodeParameterSet(params, name: "params", context: context) {
            case .positional(let values): parameters = .positional(values)
            case .named(let values): parameters = .named(values)
            }
            return StatementRequest(sql: sql, parameters: parameters)
        case (nil, let batch?):
            guard case .array(let sets) = batch else {
                throw .invalidRequest(located("\"params_batch\" must be an array, not \(batch.typeName)", in: context))
            }
            guard !sets.isEmpty else {
                throw .invalidRequest(located("\"params_batch\" must not be empty", in: context))
            }
            var decoded: [StatementRequest.ParameterSet] = []
            decoded.reserveCapacity(sets.count)
            for (index, set) in sets.enumerated() {
                decoded.append(try decodeParameterSet(set, name: "params_batch[\(index)]", context: context))
            }
            return StatementRequest(sql: sql, parameters: .batch(decoded))
        }
    }

    /// Decodes one parameter set: an array (positional) or an object (named).
    ///
    /// - Parameter name: how the set is called in messages: `params` or `params_batch[2]`.
    static func decodeParameterSet(
        _ value: JSONValue,
        name: String,
        context: String?
    ) throws(APIError) -> StatementRequest.ParameterSet {
        switch value {
        case .array(let elements):
            var values: [ParameterValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                values.append(
                    try parameterValue(element, parameter: "parameter \(index + 1)", set: name, context: context)
                )
            }
            return .positional(values)
        case .object(let object):
            var values: [StatementRequest.NamedParameter] = []
            values.reserveCapacity(object.count)
            for member in object.members {
                let value = try parameterValue(
                    member.value,
                    parameter: "parameter \(parameterLabel(member.key))",
                    set: name,
                    context: context
                )
                values.append(StatementRequest.NamedParameter(name: member.key, value: value))
            }
            return .named(values)
        default:
            throw .invalidRequest(
                located("\"\(name)\" must be an array or an object, not \(value.typeName)", in: context)
            )
        }
    }

    /// Converts one JSON value to a bindable value, or throws `BIND_ERROR` naming the parameter (never the value).
    static func parameterValue(
        _ value: JSONValue,
        parameter: String,
        set: String,
        context: String?
    ) throws(APIError) -> ParameterValue {
        func bindError(_ problem: String) -> APIError {
            let inBatch = set.hasPrefix("params_batch") ? "\(set): " : ""
            return .bindError(located("\(inBatch)\(parameter): \(problem)", in: context))
        }
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .integer(let integer): return .integer(integer)
        case .double(let double): return .real(double)
        case .string(let text): return .text(text)
        case .array:
            throw bindError("an array cannot be bound (a blob is written {\"base64\": \"...\"})")
        case .object(let object):
            guard object.count == 1, let encoded = object["base64"] else {
                throw bindError("an object cannot be bound (only {\"base64\": \"...\"}, a blob)")
            }
            guard case .string(let text) = encoded else {
                throw bindError("\"base64\" must be a string, not \(encoded.typeName)")
            }
            guard let bytes = Base64.decode(text) else {
                throw bindError("invalid base64 (standard alphabet, padded, no whitespace)")
            }
            return .blob(bytes)
        }
    }

    /// A named parameter as messages show it: `:id` for `"id"`, the key itself when it has a prefix.
    static func parameterLabel(_ key: String) -> String {
        let hasPrefix = key.first.map { ":@$".contains($0) } ?? false
        return hasPrefix ? shortenedForMessage(key) : ":" + shortenedForMessage(key)
    }
}

extension RequestDecoder {
    /// Whether `text` holds U+0000, found by `memchr` over its UTF-8 bytes (the UTF-8 view's iterator costs about
    /// twenty instructions a byte, and every statement's SQL is checked).
    static func containsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
    }
}
