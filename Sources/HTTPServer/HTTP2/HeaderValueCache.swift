import Glibc

/// The strings of a connection's last header values, by their position in the header block: a client sends the same
/// fields in the same order on every request of a connection (user agent, content type, authority, token), so most
/// values are found here by one comparison of bytes instead of being validated as UTF-8 and copied into a new
/// string. Bounded: the first `positions` fields, values up to `maxLength` bytes.
struct HeaderValueCache {
    private var bytes: [[UInt8]] = []
    private var strings: [String] = []

    static var positions: Int { 16 }
    static var maxLength: Int { 128 }

    /// `value` as a string: the one cached at `position` when its bytes are the same, else a new one (cached).
    mutating func string(for value: UnsafeBufferPointer<UInt8>, at position: Int) -> String {
        if position < bytes.count {
            let same = bytes[position].withUnsafeBufferPointer { cached in
                cached.count == value.count
                    && (value.isEmpty || memcmp(cached.baseAddress!, value.baseAddress!, value.count) == 0)
            }
            if same { return strings[position] }
        }
        let string = String(decoding: value, as: UTF8.self)
        guard position < Self.positions, value.count <= Self.maxLength else { return string }
        if position < bytes.count {
            bytes[position] = Array(value)
            strings[position] = string
        } else if position == bytes.count {
            bytes.append(Array(value))
            strings.append(string)
        }
        return string
    }
}
