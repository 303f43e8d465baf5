extension SQLiteService {
    /// A request body that must be one JSON object: 400 `INVALID_JSON` when it is not JSON, 400 `INVALID_REQUEST`
    /// (`notAnObject`) for any other JSON value.
    static func jsonObjectBody(
        _ body: [UInt8],
        notAnObject: String = "the body must be a JSON object"
    ) throws(APIError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser().parse(body)
        } catch {
            throw .invalidJSON("the body is not valid JSON")
        }
        guard case .object(let object) = value else { throw .invalidRequest(notAnObject) }
        return object
    }

    /// ``jsonObjectBody(_:notAnObject:)`` for an endpoint whose body is optional: nil for an empty body (or only
    /// white space).
    static func optionalJSONObjectBody(_ body: [UInt8]) throws(APIError) -> JSONObject? {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            return nil
        }
        return try jsonObjectBody(body)
    }
}
