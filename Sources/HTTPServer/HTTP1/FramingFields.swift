/// The values of the request header fields that decide framing and connection handling (RFC 9112 §6, §9),
/// gathered in one pass over the fields.
struct FramingFields {
    /// The names of the fields gathered here (``init(_:)`` matches them by length first).
    static let names = ["Host", "Expect", "Connection", "Content-Length", "Transfer-Encoding"]

    var hosts = FieldValues()
    var connection = FieldValues()
    var expect = FieldValues()
    var contentLength = FieldValues()
    var transferEncoding = FieldValues()

    init(_ headers: HTTPHeaders) {
        for (name, value) in headers {
            // The length rules out most names before any comparison.
            switch name.utf8.count {
            case 4 where HTTPHeaders.namesEqual(name, "Host"): hosts.append(value)
            case 6 where HTTPHeaders.namesEqual(name, "Expect"): expect.append(value)
            case 10 where HTTPHeaders.namesEqual(name, "Connection"): connection.append(value)
            case 14 where HTTPHeaders.namesEqual(name, "Content-Length"): contentLength.append(value)
            case 17 where HTTPHeaders.namesEqual(name, "Transfer-Encoding"): transferEncoding.append(value)
            default: break
            }
        }
    }
}

extension FramingFields {
    /// A `Content-Length` value in its common form, 1 to 18 digits (leading zeros allowed); nil for any other form,
    /// which the parser's full reading decides (lists, whitespace, longer numbers).
    static func plainLength(_ value: String) -> Int? {
        var value = value
        return value.withUTF8 { digits -> Int? in
            guard (1...18).contains(digits.count) else { return nil }
            var length = 0
            for digit in digits {
                guard (0x30...0x39).contains(digit) else { return nil }
                length = length * 10 + Int(digit - 0x30)
            }
            return length
        }
    }
}

/// The values of one field in order: the first kept inline (a request sends each framing field once, if at all),
/// the others in an array made only for a second one.
struct FieldValues {
    private(set) var first: String?
    private var rest: [String] = []

    var count: Int { first == nil ? 0 : 1 + rest.count }

    var isEmpty: Bool { first == nil }

    mutating func append(_ value: String) {
        if first == nil { first = value } else { rest.append(value) }
    }

    /// Every value, in order.
    var all: [String] { first.map { [$0] + rest } ?? [] }
}
