/// Splitting and percent-decoding of an origin-form request target (RFC 9112 §3.2.1, RFC 3986 §2.1).
enum RequestTarget {
    /// An absolute-form target (RFC 9112 §3.2.2, `http://host:8080/path?query`) split into its authority and the
    /// origin-form target it stands for (`/path?query`; `/` when the path is empty); nil when it is not an `http`
    /// or `https` URI with an authority, or when the authority carries user information (RFC 9110 §4.2.4).
    static func absoluteForm(_ target: String) -> (authority: Substring, originForm: String)? {
        let bytes = target.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = target[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let afterColon = target[target.index(after: colon)...]
        guard afterColon.hasPrefix("//") else { return nil }
        let hierarchy = afterColon.dropFirst(2)
        let authorityEnd =
            hierarchy.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
            ?? hierarchy.endIndex
        let authority = hierarchy[..<authorityEnd]
        guard !authority.utf8.contains(UInt8(ascii: "@")) else { return nil }
        let rest = hierarchy[authorityEnd...]
        return (authority, rest.hasPrefix("/") ? String(rest) : "/" + rest)
    }

    static func split(_ target: String) -> (rawPath: String, rawQuery: String?) {
        // Searched as bytes: a Character search walks grapheme clusters and cost more than parsing the line.
        let bytes = target.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (target, nil) }
        return (String(target[..<mark]), String(target[bytes.index(after: mark)...]))
    }

    /// Decodes `%XX` escapes; `nil` for an invalid escape, an encoded NUL or a result that is not UTF-8.
    static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool) -> String? {
        // The common case, nothing to decode, costs one scan and no copy of the bytes.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                    let high = ASCII.hexValue(bytes[index + 1]),
                    let low = ASCII.hexValue(bytes[index + 2])
                else { return nil }
                let decoded = high << 4 | low
                // An encoded NUL would end C strings early and is never legitimate in a path or key.
                guard decoded != 0 else { return nil }
                output.append(decoded)
                index += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    /// Decodes `a=1&b=2` into pairs; `nil` when any part has an invalid escape.
    static func decodeQuery(_ query: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = part.firstIndex(of: "=") {
                name = part[..<equals]
                value = part[part.index(after: equals)...]
            } else {
                name = part
                value = ""
            }
            guard let decodedName = percentDecode(name, plusAsSpace: true),
                let decodedValue = percentDecode(value, plusAsSpace: true)
            else { return nil }
            pairs.append((name: decodedName, value: decodedValue))
        }
        return pairs
    }
}
