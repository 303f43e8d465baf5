/// Column names with the lookups that ``Statement/columnIndex(named:)`` and ``Row`` use, built once per layout.
///
/// Names are compared case-insensitively and the leftmost match wins. A lookup first looks for an exact match
/// (`String ==` compares two identical small strings in a few instructions, far less than hashing), starting at the
/// column after the previous hit, since rows are most often read column after column; an exact match at `i` answers
/// `firstEquivalent[i]`, the leftmost column with the same case-folded name. Only a name that matches no column
/// exactly is lower-cased and compared to the lower-cased names.
final class ColumnNameTable: Sendable {
    let names: [String]
    /// For each column, the index of the leftmost column whose lower-cased name is the same.
    private let firstEquivalent: [Int]
    private let lowercasedNames: [String]

    init(names: [String]) {
        self.names = names
        let lowercased = names.map { $0.lowercased() }
        var first: [String: Int] = [:]
        var firstEquivalent: [Int] = []
        firstEquivalent.reserveCapacity(names.count)
        for (index, name) in lowercased.enumerated() {
            if first[name] == nil { first[name] = index }
            firstEquivalent.append(first[name]!)
        }
        self.firstEquivalent = firstEquivalent
        self.lowercasedNames = lowercased
    }

    /// The index of the leftmost column named `name` (case-insensitive), or `nil`.
    ///
    /// - Parameter hint: Where to look first for an exact match (typically the column after the previous hit).
    @inline(__always)
    func index(of name: String, hint: Int = 0) -> Int? {
        let count = names.count
        if hint >= 0, hint < count, names[hint] == name {
            return firstEquivalent[hint]
        }
        for index in 0..<count where names[index] == name {
            return firstEquivalent[index]
        }
        return caseInsensitiveIndex(of: name)
    }

    // Kept out of line so that the exact-match path above stays small enough to inline.
    @inline(never)
    private func caseInsensitiveIndex(of name: String) -> Int? {
        lowercasedNames.firstIndex(of: name.lowercased())
    }
}
