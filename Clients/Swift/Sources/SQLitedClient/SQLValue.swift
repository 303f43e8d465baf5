public import Foundation
import OpenAPIRuntime

/// A value bound to a statement's parameter, as the API's JSON carries it (`../shared/API.md`, "Values").
public enum SQLValue: Sendable, Hashable {
    case null
    /// An integer, sent exact to 64 bits.
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Sent as `{"base64": …}`.
    case blob(Data)

    /// The generated client's form of the value.
    var container: OpenAPIValueContainer {
        switch self {
        case .null: OpenAPIValueContainer(nilLiteral: ())
        case .integer(let value): OpenAPIValueContainer(integerLiteral: Int(value))
        case .real(let value): OpenAPIValueContainer(floatLiteral: value)
        case .text(let value): OpenAPIValueContainer(stringLiteral: value)
        case .blob(let value):
            // A String is always a valid value: the initializer cannot throw here.
            (try? OpenAPIValueContainer(unvalidatedValue: ["base64": value.base64EncodedString()]))
                ?? OpenAPIValueContainer(nilLiteral: ())
        }
    }
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

/// A BLOB column decoded from the API's `{"base64": "…"}`; use it as a `Decodable` row's property type.
public struct SQLBlob: Sendable, Hashable, Codable {
    public var data: Data

    public init(_ data: Data) { self.data = data }

    private enum CodingKeys: String, CodingKey { case base64 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .base64)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "not base64")
        }
        self.data = data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data.base64EncodedString(), forKey: .base64)
    }
}
