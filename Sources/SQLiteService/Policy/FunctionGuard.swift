import Foundation
import SQLiteEngine

/// Replaces SQLite built-in functions whose cost can grow far beyond their result: guarded versions refuse
/// hostile arguments at once with `SQLITE_TOOBIG` and pass every other call to the built-in.
///
/// SQLite's progress handler (the request deadline) runs between virtual-machine instructions, never inside one
/// function call, and SQLite 3.40.1 has calls that take minutes with arguments well within the 10 MiB value limit
/// (measured on this build):
/// - `trim`/`ltrim`/`rtrim(X, Y)` compare every character of X's ends with every character of Y: 100 KB × 100 KB
///   took 35 s;
/// - `instr(X, Y)` and `replace(X, Y, Z)` compare Y at every position of X: 10 MiB × 5 MiB would take tens of
///   minutes;
/// - `printf('%.*c', 2000000000, 'x')` loops two billion times (30 s) before returning NULL, ignoring the length
///   limit.
///
/// The guards bound the product of the argument lengths (the cost of a call) and the width and precision of a
/// `printf` conversion (by the value length limit). Calls under the bounds get the built-in's exact result: the
/// guard evaluates it on a private in-memory connection that has the built-ins. `LIKE` and `GLOB` are not replaced
/// (that would disable SQLite's LIKE optimisation); their cost, value length × pattern length, is bounded by
/// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH` instead (see ``ServiceLimits/maxLikePatternLength``).
///
/// The guards are `SQLITE_INNOCUOUS` and deterministic like the built-ins they stand for, so views, triggers and
/// indexes that use them keep working with the schema untrusted.
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_corefunc.html>,
/// <https://www.sqlite.org/printf.html>, <https://www.sqlite.org/c3ref/progress_handler.html>
enum FunctionGuard {
    /// Largest `len(X) × len(Y)` for `trim`, `ltrim`, `rtrim`: about 0.35 s at the measured 3.5 ns per pair.
    static let maxTrimCost: Int64 = 100_000_000
    /// Largest `len(X) × len(Y)` (bytes) for `instr` and `replace`: about 0.1 s of `memcmp` at the measured speed.
    static let maxSearchCost: Int64 = 4_000_000_000

    /// Installs the guards on `db`.
    ///
    /// - Parameter maxValueLength: The connection's `SQLITE_LIMIT_LENGTH`, applied to the private connection too.
    static func install(on db: Database, maxValueLength: Int32) throws {
        let evaluator = try BuiltinEvaluator(maxValueLength: maxValueLength)
        for name in ["trim", "ltrim", "rtrim"] {
            try db.createFunction(name, argumentCount: 2, deterministic: true, innocuous: true) { arguments in
                try checkCost(name, arguments[0], arguments[1], limit: maxTrimCost)
                return try evaluator.call(name, arguments)
            }
        }
        try db.createFunction("instr", argumentCount: 2, deterministic: true, innocuous: true) { arguments in
            try checkCost("instr", arguments[0], arguments[1], limit: maxSearchCost)
            return try evaluator.call("instr", arguments)
        }
        try db.createFunction("replace", argumentCount: 3, deterministic: true, innocuous: true) { arguments in
            try checkCost("replace", arguments[0], arguments[1], limit: maxSearchCost)
            return try evaluator.call("replace", arguments)
        }
        for name in ["printf", "format"] {
            try db.createFunction(name, argumentCount: nil, deterministic: true, innocuous: true) { arguments in
                try checkFormat(name, arguments, maxValueLength: Int64(maxValueLength))
                return try evaluator.call(name, arguments)
            }
        }
    }

    /// Throws `SQLITE_TOOBIG` when `len(a) × len(b)` exceeds `limit`.
    static func checkCost(_ function: String, _ a: DatabaseValue, _ b: DatabaseValue, limit: Int64) throws {
        let (product, overflow) = byteLength(a).multipliedReportingOverflow(by: byteLength(b))
        if overflow || product > limit {
            throw DatabaseError(
                kind: .sqlite,
                extendedResultCode: .SQLITE_TOOBIG,
                message: "\(function)(): arguments too large for one call "
                    + "(length × length may be at most \(limit))"
            )
        }
    }

    /// The length SQLite works on: bytes of text or blob, digits of a number.
    static func byteLength(_ value: DatabaseValue) -> Int64 {
        switch value {
        case .null: 0
        case .integer(let integer): Int64(String(integer).utf8.count)
        case .real: 24
        case .text(let text): Int64(text.utf8.count)
        case .blob(let data): Int64(data.count)
        }
    }

    /// Throws `SQLITE_TOOBIG` when a conversion of the format (argument 0) has a width, or a precision other than
    /// a string's cut-off, above the value length limit: such a result cannot be returned anyway, and `%.*c` would
    /// loop that many times first.
    static func checkFormat(_ function: String, _ arguments: [DatabaseValue], maxValueLength: Int64) throws {
        guard let first = arguments.first, case .text(let format) = first else { return }
        for conversion in PrintfFormat.conversions(in: format, arguments: arguments.dropFirst()) {
            let stringCutOff = "sqzQw".contains(conversion.type)
            let widthTooLarge = conversion.width.magnitude > UInt64(maxValueLength)
            let precisionTooLarge = !stringCutOff && conversion.precision > maxValueLength
            if widthTooLarge || precisionTooLarge {
                throw DatabaseError(
                    kind: .sqlite,
                    extendedResultCode: .SQLITE_TOOBIG,
                    message: "\(function)(): a width or precision above the value length limit (\(maxValueLength))"
                )
            }
        }
    }
}

/// Evaluates SQLite's own built-in functions on a private in-memory connection, for guards that replaced them.
///
/// Used only from inside a function call of the connection it belongs to, so on that connection's thread.
private final class BuiltinEvaluator {
    private let database: Database

    init(maxValueLength: Int32) throws {
        database = try Database(path: ":memory:")
        _ = database.setLimit(.length, maxValueLength)
        _ = database.setLimit(.attached, 0)
    }

    func call(_ function: String, _ arguments: [DatabaseValue]) throws -> DatabaseValue {
        let placeholders = (1...max(arguments.count, 1)).prefix(arguments.count).map { "?\($0)" }
        let sql = "SELECT \(function)(\(placeholders.joined(separator: ", ")))"
        let cursor = try database.query(sql: sql, arguments: .positional(arguments))
        guard let row = try cursor.next() else { return .null }
        return row.value(at: 0)
    }
}
