import Foundation

/// Turns JSON result values from sqlited into the printed values sqllogictest compares, sorts them and hashes them,
/// exactly as the reference harness does (`slt_sqlite.c` `sqliteQuery`, `sqllogictest.c`):
///
/// - NULL prints `NULL` whatever the column type.
/// - `I`: `sqlite3_column_int` printed with `%d` (a REAL is truncated toward zero, TEXT reads its leading integer,
///   and only the low 32 bits are kept).
/// - `R`: `sqlite3_column_double` printed with SQLite's `%.3f`.
/// - `T`: `sqlite3_column_text` (a REAL as `%!.15g`), read as a C string (up to the first NUL); empty prints
///   `(empty)`; every byte below `' '` or above `'~'` prints as `@`.
/// - `rowsort` sorts rows, `valuesort` all values, both by byte comparison (`strcmp`).
/// - A hash is the MD5 of every printed value followed by `\n`, after sorting.
///
/// JSON values follow the sqlited contract (API.md "Values"): integers as integer literals, reals with a fraction
/// or exponent, text as strings, blobs as `{"base64": ...}`. The strings `"Infinity"`/`"-Infinity"` that the API
/// uses for infinite reals cannot be told apart from text and are treated as text.
enum SLTFormatter {
    /// A JSON value that is not a possible result value.
    struct FormatError: Error, CustomStringConvertible {
        var value: JSONValue
        var reason: String

        var description: String { "cannot print \(value.serialized): \(reason)" }
    }

    /// The printed form of one result value for a column of the given type.
    static func print(_ value: JSONValue, as type: SLTColumnType) throws -> String {
        switch value {
        case .null:
            return "NULL"
        case .bool(let flag):
            return try print(.integer(flag ? 1 : 0), as: type)
        case .number(let literal):
            if let integer = Int64(literal) {
                switch type {
                case .integer: return String(SQLiteValueConversion.int32(fromInteger: integer))
                case .real: return SQLiteValueConversion.fixedThreeDecimals(Double(integer))
                case .text: return String(integer)
                }
            }
            guard let real = Double(literal) else { throw FormatError(value: value, reason: "not a number") }
            switch type {
            case .integer:
                return String(SQLiteValueConversion.int32(fromInteger: SQLiteValueConversion.int64(fromReal: real)))
            case .real: return SQLiteValueConversion.fixedThreeDecimals(real)
            case .text: return SQLiteValueConversion.realAsText(real)
            }
        case .string(let text):
            return printBytes(Array(text.utf8), as: type)
        case .object:
            guard let encoded = value["base64"]?.stringValue, value.objectMembers?.count == 1,
                let data = Data(base64Encoded: encoded)
            else { throw FormatError(value: value, reason: "only {\"base64\": ...} objects are values") }
            return printBytes([UInt8](data), as: type)
        case .array:
            throw FormatError(value: value, reason: "an array is not a value")
        }
    }

    /// TEXT and BLOB values: both reach the reference harness as bytes.
    private static func printBytes(_ bytes: [UInt8], as type: SLTColumnType) -> String {
        switch type {
        case .integer:
            return String(SQLiteValueConversion.int32(fromInteger: SQLiteValueConversion.int64(fromText: bytes)))
        case .real:
            return SQLiteValueConversion.fixedThreeDecimals(SQLiteValueConversion.double(fromText: bytes))
        case .text:
            // The harness read the value as a C string, so it ends at the first NUL byte.
            let visible = bytes.prefix(while: { $0 != 0 })
            if visible.isEmpty { return "(empty)" }
            return String(
                decoding: visible.map { $0 < 0x20 || $0 > 0x7E ? UInt8(ascii: "@") : $0 },
                as: UTF8.self
            )
        }
    }

    /// Prints every value of every row, row by row, checking each row has one value per column type.
    static func printRows(_ rows: [[JSONValue]], types: [SLTColumnType]) throws -> [String] {
        var printed: [String] = []
        printed.reserveCapacity(rows.count * types.count)
        for row in rows {
            guard row.count == types.count else {
                throw FormatError(value: .array(row), reason: "row has \(row.count) values, expected \(types.count)")
            }
            for (value, type) in zip(row, types) {
                printed.append(try print(value, as: type))
            }
        }
        return printed
    }

    /// Applies a sort mode to printed values (`columnCount` values per row).
    static func sort(_ values: [String], columnCount: Int, mode: SLTSortMode) -> [String] {
        switch mode {
        case .nosort:
            return values
        case .valuesort:
            return values.sorted(by: byteOrder)
        case .rowsort:
            guard columnCount > 0 else { return values }
            let rows = stride(from: 0, to: values.count, by: columnCount).map {
                Array(values[$0..<min($0 + columnCount, values.count)])
            }
            return rows.sorted { left, right in
                for (a, b) in zip(left, right) where a != b {
                    return byteOrder(a, b)
                }
                return left.count < right.count
            }.flatMap { $0 }
        }
    }

    /// `strcmp` order: compares UTF-8 bytes, not Unicode collation.
    private static func byteOrder(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    /// MD5 of every value followed by a newline, as 32 lowercase hex digits.
    static func md5(of values: [String]) -> String {
        var md5 = MD5()
        for value in values {
            md5.update(value)
            md5.update("\n")
        }
        return md5.finalizeHex()
    }

    /// The line sqllogictest writes for a hashed result: `N values hashing to H`.
    static func hashLine(for values: [String]) -> String {
        "\(values.count) values hashing to \(md5(of: values))"
    }
}
