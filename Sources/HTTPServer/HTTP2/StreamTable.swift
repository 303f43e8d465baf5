/// Values keyed by stream id. A connection usually has one or two streams open: those are found by a linear search
/// of a small array (hashing an id cost more than the search, several times per request); past `linearLimit`
/// entries a dictionary takes over, so a client with many streams open (up to `SETTINGS_MAX_CONCURRENT_STREAMS`)
/// costs one hash per lookup, never a long search.
struct StreamTable<Value> {
    private var few: [(id: Int32, value: Value)] = []
    private var many: [Int32: Value] = [:]
    private var usesDictionary = false

    static var linearLimit: Int { 8 }

    init() {
        few.reserveCapacity(Self.linearLimit)
    }

    subscript(id: Int32) -> Value? {
        get {
            if usesDictionary { return many[id] }
            for entry in few where entry.id == id { return entry.value }
            return nil
        }
        set {
            if usesDictionary {
                many[id] = newValue
                if many.isEmpty { usesDictionary = false }
            } else if let index = few.firstIndex(where: { $0.id == id }) {
                if let newValue { few[index].value = newValue } else { few.remove(at: index) }
            } else if let newValue {
                if few.count < Self.linearLimit {
                    few.append((id, newValue))
                } else {
                    many = Dictionary(uniqueKeysWithValues: few.map { ($0.id, $0.value) })
                    many[id] = newValue
                    few.removeAll(keepingCapacity: true)
                    usesDictionary = true
                }
            }
        }
    }

    /// Removes and returns the value of `id`.
    @discardableResult
    mutating func removeValue(forKey id: Int32) -> Value? {
        guard let value = self[id] else { return nil }
        self[id] = nil
        return value
    }

    var isEmpty: Bool { usesDictionary ? many.isEmpty : few.isEmpty }

    var count: Int { usesDictionary ? many.count : few.count }
}

/// Every entry, in no particular order, without copying the table (the session's timer looks for the oldest stream
/// after every read; an array of the entries built per call cost an allocation once past `linearLimit`).
extension StreamTable: Sequence {
    struct Iterator: IteratorProtocol {
        fileprivate var few: IndexingIterator<[(id: Int32, value: Value)]>
        fileprivate var many: Dictionary<Int32, Value>.Iterator?

        mutating func next() -> (id: Int32, value: Value)? {
            if many != nil {
                guard let (id, value) = many?.next() else { return nil }
                return (id, value)
            }
            return few.next()
        }
    }

    func makeIterator() -> Iterator {
        usesDictionary
            ? Iterator(few: [].makeIterator(), many: many.makeIterator())
            : Iterator(few: few.makeIterator(), many: nil)
    }

    var underestimatedCount: Int { count }
}

extension StreamTable where Value == Void {
    /// Whether `id` is in the table (a table of `Void` is a set of stream ids).
    func contains(_ id: Int32) -> Bool { self[id] != nil }

    mutating func insert(_ id: Int32) { self[id] = () }

    mutating func remove(_ id: Int32) { self[id] = nil }

    /// The ids, for tests and diagnostics.
    var ids: Set<Int32> { Set(lazy.map(\.id)) }
}
