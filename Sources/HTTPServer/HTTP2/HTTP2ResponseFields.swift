import CNGHTTP2

/// A response's header block as libnghttp2 takes it: `:status` first, then the fields, every name and value in one
/// byte buffer that the session reuses for each response (libnghttp2 copies the fields when the response is
/// submitted), so answering a stream builds no strings and allocates nothing once the buffers have grown.
struct HTTP2ResponseFields {
    private var bytes: [UInt8] = []
    /// The name's and the value's length of each field, in order; their bytes follow one another in `bytes`.
    private var lengths: [(name: Int, value: Int)] = []
    private var nameValues: [nghttp2_nv] = []
    /// Handler fields found valid lately, and whether their names have upper-case letters: handlers send the same
    /// few fields (`Content-Type: application/json`) with every response, so the check is a string comparison.
    private var checked: [(name: String, value: String, hasUpperCase: Bool)] = []
    private var nextChecked = 0
    private static var checkedCapacity: Int { 4 }

    init() {
        bytes.reserveCapacity(256)
        lengths.reserveCapacity(8)
        nameValues.reserveCapacity(8)
    }

    /// Starts a new header block with `:status` (three digits; out-of-range codes are clamped to 100...999).
    mutating func reset(status: Int) {
        bytes.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        let code = min(max(status, 100), 999)
        bytes.appendLiteral(":status")
        bytes.append(UInt8(ascii: "0") + UInt8(code / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(code % 10))
        lengths.append((7, 3))
    }

    /// Appends a field whose name is the server's own (lower case, a token) and whose value the caller has checked.
    mutating func append(_ name: StaticString, _ value: String) {
        bytes.appendLiteral(name)
        let start = bytes.count
        bytes.appendUTF8(value)
        lengths.append((name.utf8CodeUnitCount, bytes.count - start))
    }

    /// Appends `date` with the current time (RFC 9110 §6.6.1).
    mutating func appendDate() {
        bytes.appendLiteral("date")
        let start = bytes.count
        HTTPDate.appendNow(to: &bytes)
        lengths.append((4, bytes.count - start))
    }

    /// Appends a field whose value is a non-negative decimal number.
    mutating func append(_ name: StaticString, decimal value: Int) {
        bytes.appendLiteral(name)
        let start = bytes.count
        ResponseHead.appendDecimal(value, to: &bytes)
        lengths.append((name.utf8CodeUnitCount, bytes.count - start))
    }

    /// Appends a handler's field with its name in lower case (RFC 9113 §8.2.1); a name that is not a token or a
    /// value with a byte a field value may not carry (CR, LF, NUL: response splitting) drops the field. Returns
    /// whether it was kept.
    @discardableResult
    mutating func append(checkedName name: String, value: String) -> Bool {
        var hasUpperCase: Bool
        if let known = checked.first(where: { $0.name == name && $0.value == value }) {
            hasUpperCase = known.hasUpperCase
        } else {
            guard let upper = Self.check(name: name, value: value) else { return false }
            hasUpperCase = upper
            let entry = (name, value, upper)
            if checked.count < Self.checkedCapacity {
                checked.append(entry)
            } else {
                checked[nextChecked] = entry
                nextChecked = (nextChecked + 1) % Self.checkedCapacity
            }
        }
        let start = bytes.count
        bytes.appendUTF8(name)
        let nameLength = bytes.count - start
        if hasUpperCase {
            bytes.withUnsafeMutableBufferPointer { bytes in
                for index in start..<start + nameLength { bytes[index] = ASCII.lowercased(bytes[index]) }
            }
        }
        bytes.appendUTF8(value)
        lengths.append((nameLength, bytes.count - start - nameLength))
        return true
    }

    /// Nil when `name` is not a token or `value` has a byte a field value may not carry; else whether `name` has
    /// upper-case letters.
    private static func check(name: String, value: String) -> Bool? {
        var name = name
        var value = value
        let nameKind = name.withUTF8 { name -> Bool? in
            guard !name.isEmpty else { return nil }
            var upper = false
            for byte in name {
                guard ASCII.isTokenCharacter(byte) else { return nil }
                upper = upper || (byte >= 0x41 && byte <= 0x5A)
            }
            return upper
        }
        guard let nameKind else { return nil }
        let validValue = value.withUTF8 { value in
            for byte in value where !ASCII.isFieldValueCharacter(byte) { return false }
            return true
        }
        return validValue ? nameKind : nil
    }

    /// Number of fields, `:status` included.
    var count: Int { lengths.count }

    /// Calls `body` with the fields as libnghttp2 name/value pairs, valid during the call only.
    mutating func withNameValues<R>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        var pairs: [nghttp2_nv] = []
        swap(&pairs, &nameValues)
        defer { swap(&pairs, &nameValues) }
        pairs.removeAll(keepingCapacity: true)
        return bytes.withUnsafeMutableBufferPointer { storage in
            guard var cursor = storage.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            for (nameLength, valueLength) in lengths {
                pairs.append(
                    nghttp2_nv(
                        name: cursor,
                        value: cursor + nameLength,
                        namelen: nameLength,
                        valuelen: valueLength,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                    )
                )
                cursor += nameLength + valueLength
            }
            return pairs.withUnsafeBufferPointer(body)
        }
    }
}
