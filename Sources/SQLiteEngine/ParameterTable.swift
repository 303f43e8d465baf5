/// A statement's parameter names, prepared once for binding named arguments without building sets or strings per
/// call.
struct ParameterTable {
    /// Each parameter's name with its prefix (`:id`), or `nil` for `?` / a gap left by `?NNN`.
    let names: [String?]
    /// Each named parameter's name without its prefix (`id`); empty for an unnamed one.
    let bareNames: [String]
    /// Whether every parameter is named (`:x`, `@x`, `$x`) and there is at least one.
    let isFullyNamed: Bool
    /// Whether the names and bare names are all distinct, so that one key can match at most one parameter. Then a
    /// call whose keys all matched, one per parameter, needs no further check for unknown or doubled keys.
    let keysAreUnambiguous: Bool
    /// Every key a named argument may use: each parameter name with and without its prefix.
    let acceptedKeys: Set<String>

    init(names: [String?]) {
        self.names = names
        self.bareNames = names.map { name in name.map { String($0.dropFirst()) } ?? "" }
        self.isFullyNamed = !names.isEmpty && names.allSatisfy { Statement.isNamed($0) }
        var keys: Set<String> = []
        for (name, bare) in zip(names, bareNames) {
            if let name {
                keys.insert(name)
                keys.insert(bare)
            }
        }
        self.acceptedKeys = keys
        self.keysAreUnambiguous = isFullyNamed && keys.count == 2 * names.count
    }

    /// The index of the parameter that `key` names (with or without its prefix), comparing strings rather than
    /// hashing; looks at `hint` first.
    func index(ofKey key: String, hint: Int) -> Int? {
        if hint < names.count, key == bareNames[hint] || key == names[hint] {
            return hint
        }
        for index in 0..<names.count where key == bareNames[index] || key == names[index] {
            return index
        }
        return nil
    }
}
