/// The values of the request header fields that decide framing and connection handling (RFC 9112 §6, §9),
/// gathered in one pass over the fields.
struct FramingFields {
    var hosts: [String] = []
    var connection: [String] = []
    var expect: [String] = []
    var contentLength: [String] = []
    var transferEncoding: [String] = []

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
