/// Values to bind to a statement's parameters: positional (`?`, `?NNN`) or named (`:name`, `@name`, `$name`).
///
/// A named key may be written with or without its prefix: `"id"` binds `:id`, `@id` or `$id`, whichever the SQL
/// uses. Binding is strict (see ``Statement/bind(_:)``).
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_expr.html#varparam>
public enum StatementArguments: Sendable, Hashable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    case positional([DatabaseValue])
    case named([String: DatabaseValue])

    /// No arguments, for a statement without parameters.
    public static let none = StatementArguments.positional([])

    public init(arrayLiteral elements: DatabaseValue...) {
        self = .positional(elements)
    }

    public init(dictionaryLiteral elements: (String, DatabaseValue)...) {
        var values: [String: DatabaseValue] = [:]
        for (key, value) in elements {
            values[key] = value
        }
        self = .named(values)
    }

    /// Positional arguments from Swift values; `nil` binds NULL.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self = .positional(values.map { $0?.databaseValue ?? .null })
    }

    /// Named arguments from Swift values; `nil` binds NULL.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        self = .named(values.mapValues { $0?.databaseValue ?? .null })
    }

    /// Whether there is no value at all.
    public var isEmpty: Bool {
        switch self {
        case .positional(let values): values.isEmpty
        case .named(let values): values.isEmpty
        }
    }
}

extension StatementArguments: CustomStringConvertible, CustomDebugStringConvertible {
    /// A description with the number of values or the keys, never the values: arguments are user data that must
    /// not reach logs or error messages.
    public var description: String {
        switch self {
        case .positional(let values):
            "positional(\(values.count) value\(values.count == 1 ? "" : "s"))"
        case .named(let values):
            "named(\(values.keys.sorted().joined(separator: ", ")))"
        }
    }

    public var debugDescription: String {
        description
    }
}
