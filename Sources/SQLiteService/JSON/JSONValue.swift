/// A parsed JSON value (RFC 8259).
///
/// Numbers keep the distinction the API contract needs: a number written with no fraction and no exponent that fits
/// in a signed 64-bit integer is an ``integer(_:)``, parsed exactly from its digits; every other number is a
/// ``double(_:)``. Objects keep their members in document order (see ``JSONObject``).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// A short name of the value's JSON type, for error messages that must not echo the value itself.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
