extension RequestDecoder {
    /// Decodes the request options at the top level of `object`; absent keys keep their defaults.
    ///
    /// Numbers must be written as integers (`5`, not `5.0` or `5e0`).
    static func decodeOptions(_ object: JSONObject) throws(APIError) -> RequestOptions {
        var options = RequestOptions()
        if let value = object["shape"] {
            guard case .string(let text) = value, let shape = RequestOptions.Shape(rawValue: text) else {
                throw .invalidRequest("\"shape\" must be \"objects\" or \"arrays\"")
            }
            options.shape = shape
        }
        if let value = object["int64_as_string"] {
            guard case .bool(let flag) = value else {
                throw .invalidRequest("\"int64_as_string\" must be a boolean, not \(value.typeName)")
            }
            options.int64AsString = flag
        }
        if let value = object["max_rows"] {
            guard case .integer(let number) = value, number >= 0 else {
                throw .invalidRequest("\"max_rows\" must be an integer >= 0")
            }
            options.maxRows = Int(clamping: number)
        }
        if let value = object["timeout_ms"] {
            guard case .integer(let number) = value, number >= 1 else {
                throw .invalidRequest("\"timeout_ms\" must be an integer >= 1")
            }
            options.timeoutMs = Int(clamping: number)
        }
        return options
    }
}
