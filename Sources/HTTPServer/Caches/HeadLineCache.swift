import Glibc

/// What a connection's last request made of each of its lines (or header values), by the line's position: a client
/// sends the same fields in the same order on every request of a connection (user agent, content type, host,
/// token), so most lines are found here by one comparison of bytes instead of being parsed, validated and copied
/// into new strings again. Bounded: the first `positions` lines, lines up to `maxLength` bytes.
///
/// Key: a line's position in the head and its exact bytes. Bound: ``positions`` positions, lines of at most
/// ``maxLength`` bytes. Invalidated by: a different line at the same position (it replaces the entry).
struct HeadLineCache<Value> {
    private var lines: [[UInt8]] = []
    private var values: [Value] = []

    static var positions: Int { 32 }
    static var maxLength: Int { 512 }

    /// The value remembered at `position` when its line had exactly these bytes.
    func value(for line: UnsafeBufferPointer<UInt8>, at position: Int) -> Value? {
        guard position < lines.count else { return nil }
        let same = lines[position].withUnsafeBufferPointer { known in
            known.count == line.count
                && (line.isEmpty || memcmp(known.baseAddress!, line.baseAddress!, line.count) == 0)
        }
        return same ? values[position] : nil
    }

    /// Remembers `value` for `line` at `position` (nothing past the bounds, or past the first position not yet
    /// filled).
    mutating func remember<Line: Collection<UInt8>>(_ line: Line, _ value: Value, at position: Int) {
        guard position < Self.positions, line.count <= Self.maxLength else { return }
        if position < lines.count {
            lines[position] = Array(line)
            values[position] = value
        } else if position == lines.count {
            lines.append(Array(line))
            values.append(value)
        }
    }
}

extension HeadLineCache where Value == String {
    /// `value` as a string: the one remembered at `position` when its bytes are the same, else a new one
    /// (remembered). Invalid UTF-8 is repaired as `String(decoding:as:)` does.
    mutating func string(for value: UnsafeBufferPointer<UInt8>, at position: Int) -> String {
        if let known = self.value(for: value, at: position) { return known }
        let string = String(decoding: value, as: UTF8.self)
        remember(value, string, at: position)
        return string
    }
}
