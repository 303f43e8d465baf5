/// HTTP header fields: case-insensitive names, several values per name, original order preserved.
///
/// RFC 9110 §5: field names are case-insensitive; the order of fields with the same name is significant.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    /// A field as stored: a struct, not the `Element` tuple, so that destroying the list (once per request) is a
    /// loop over a known layout instead of the runtime's generic tuple destruction per field.
    fileprivate struct Field {
        var name: String
        var value: String
    }

    private var fields: [Field]

    /// Creates an empty set of fields.
    public init() {
        fields = []
    }

    /// Creates an empty set of fields with room for `capacity` of them.
    init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Creates fields from name/value pairs, in order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields (a name sent twice counts twice).
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Whether `other` shares these fields' storage (a copy of this value, neither changed since): then its fields
    /// are these. False says nothing.
    func hasSameStorage(as other: HTTPHeaders) -> Bool {
        fields.withUnsafeBufferPointer { mine in
            other.fields.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }

    /// The value of the first field named `name`, or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// The values of every field named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// The value of the first field named `name`, and whether another field has that name too; nil when none has.
    /// One pass that builds no array (``values(for:)`` builds two), for a field that must be sent once.
    public func firstValue(for name: String) -> (value: String, isRepeated: Bool)? {
        var found: String?
        for field in fields where Self.namesEqual(field.name, name) {
            if let found { return (found, true) }
            found = field.value
        }
        return found.map { ($0, false) }
    }

    /// Whether a field named `name` is present. Always inlined: every HTTP/1.1 request is asked for `Upgrade`, and as
    /// a call this retained and released each field's name (callgrind: about 200 instructions a request).
    @inline(__always) public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesEqual($0.name, name) }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces the value of the field at `index` (in order), keeping its name.
    mutating func replaceValue(at index: Int, with value: String) {
        fields[index].value = value
    }

    /// Replaces every field named `name` by one field with `value`.
    public mutating func set(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// The comma-separated list elements of every field named `name`, trimmed and lowercased.
    ///
    /// RFC 9110 §5.6.1: empty list elements are ignored.
    func listTokens(for name: String) -> [String] {
        Self.listTokens(of: values(for: name))
    }

    /// The comma-separated list elements of `values`, trimmed and lowercased, empty ones dropped.
    static func listTokens(of values: [String]) -> [String] {
        values.flatMap { value in
            value.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingOWS().lowercased() }
                .filter { !$0.isEmpty }
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(fields: fields.makeIterator())
    }

    /// The fields in order, as name/value pairs.
    public struct Iterator: IteratorProtocol {
        fileprivate var fields: IndexingIterator<[Field]>

        public mutating func next() -> Element? {
            fields.next().map { ($0.name, $0.value) }
        }
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }

    static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        // Native strings are contiguous UTF-8: compare the bytes directly (this runs several times per request).
        let compared = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                for index in 0..<leftBytes.count
                where ASCII.lowercased(leftBytes[index]) != ASCII.lowercased(rightBytes[index]) {
                    return false
                }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        return zip(left, right).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }
}

extension Substring {
    /// Drops leading and trailing optional whitespace (SP and HTAB, RFC 9110 §5.6.3).
    func trimmingOWS() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
