/// The values of the request header fields that decide framing and connection handling (RFC 9112 §6, §9),
/// gathered in one pass over the fields.
struct FramingFields {
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
