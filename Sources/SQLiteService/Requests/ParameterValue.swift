/// A validated parameter value, ready to bind.
///
/// JSON values map as the contract's Values table says: `null` → NULL, `true`/`false` → INTEGER 1/0, an integral
/// number within `Int64` → INTEGER (exact), any other number → REAL, a string → TEXT, `{"base64": "..."}` → BLOB
/// (already decoded, `""` being a zero-length blob).
public enum ParameterValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
