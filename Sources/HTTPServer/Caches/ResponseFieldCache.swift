/// Response fields from handlers found valid lately, per connection: a handler sends the same few fields
/// (`Content-Type: application/json`) with every response, so checking one again is a comparison of bytes instead of
/// a pass that classifies each byte.
///
/// Key: a response field's name and value. Bound: ``capacity`` fields. Invalidated by: nothing but age — a new
/// field replaces the entries round robin.
struct ResponseFieldCache {
    private var entries: [(name: String, value: String, hasUpperCase: Bool)] = []
    private var next = 0

    static var capacity: Int { 4 }

    /// Nil when `name` is not a token or `value` has a byte a field value may not carry (CR, LF, NUL: response
    /// splitting); else whether `name` has upper-case letters.
    mutating func check(name: String, value: String) -> Bool? {
        if let known = entries.first(where: { $0.name.hasSameBytes(as: name) && $0.value.hasSameBytes(as: value) }) {
            return known.hasUpperCase
        }
        guard let hasUpperCase = Self.validate(name: name, value: value) else { return nil }
        if entries.count < Self.capacity {
            entries.append((name, value, hasUpperCase))
        } else {
            entries[next] = (name, value, hasUpperCase)
            next = (next + 1) % Self.capacity
        }
        return hasUpperCase
    }

    private static func validate(name: String, value: String) -> Bool? {
        var name = name
        var value = value
        let hasUpperCase = name.withUTF8 { name -> Bool? in
            guard !name.isEmpty else { return nil }
            var upper = false
            for byte in name {
                guard ASCII.isTokenCharacter(byte) else { return nil }
                upper = upper || (byte >= 0x41 && byte <= 0x5A)
            }
            return upper
        }
        guard let hasUpperCase else { return nil }
        let validValue = value.withUTF8 { value in
            for byte in value where !ASCII.isFieldValueCharacter(byte) { return false }
            return true
        }
        return validValue ? hasUpperCase : nil
    }
}
