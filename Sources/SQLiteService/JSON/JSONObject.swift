/// A JSON object whose members keep their document order and whose keys are unique.
///
/// ``JSONParser`` refuses an object with a repeated key (RFC 8259 §4 leaves its meaning undefined), so a key is
/// looked up unambiguously. Two objects are equal when they have the same members in the same order.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in document order.
    public private(set) var members: [Member]

    /// Creates an empty object.
    public init() {
        members = []
    }

    /// Creates an object from members the caller guarantees to have unique keys (the parser checks them).
    init(uniqueMembers: [Member]) {
        members = uniqueMembers
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no member.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`, or `nil` when the object has no such member.
    ///
    /// Setting a value replaces an existing member in place (keeping its position) or appends a new one; setting
    /// `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            // Request objects have a handful of keys: a linear scan beats hashing here.
            members.first { $0.key == key }?.value
        }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }
}
