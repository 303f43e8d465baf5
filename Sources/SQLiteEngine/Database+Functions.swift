internal import CSQLite
import Foundation

extension Database {
    /// Registers an SQL scalar function implemented in Swift.
    ///
    /// The body receives the arguments with their storage classes and returns a value (`nil` is NULL). An error it
    /// throws makes the calling statement fail: a ``DatabaseError`` with its message and extended result code,
    /// any other error with its description and `SQLITE_ERROR`.
    ///
    /// - Parameters:
    ///   - name: The SQL name.
    ///   - argumentCount: The exact number of arguments, or `nil` for any number.
    ///   - deterministic: Whether the same arguments always give the same result (`SQLITE_DETERMINISTIC`, which lets
    ///     SQLite use the function in indexes and factor calls out).
    ///   - innocuous: Whether the function has no side effects and reveals nothing beyond its arguments
    ///     (`SQLITE_INNOCUOUS`); only such functions may be used by views, triggers and indexes while the schema is
    ///     not trusted (<https://www.sqlite.org/c3ref/c_deterministic.html>).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/create_function.html>
    public func createFunction(
        _ name: String,
        argumentCount: Int32? = nil,
        deterministic: Bool = true,
        innocuous: Bool = false,
        _ body: @escaping ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?
    ) throws {
        let (connection, handle) = try openConnection()
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        var flags = SQLITE_UTF8
        if deterministic {
            flags |= SQLITE_DETERMINISTIC
        }
        if innocuous {
            flags |= SQLITE_INNOCUOUS
        }
        let code = sqlite3_create_function_v2(
            handle,
            name,
            argumentCount ?? -1,
            flags,
            box,
            { context, argc, argv in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                var arguments: [DatabaseValue] = []
                arguments.reserveCapacity(Int(argc))
                for index in 0..<Int(argc) {
                    arguments.append(DatabaseValue(sqliteValue: argv![index]))
                }
                do {
                    let result = try box.body(arguments)
                    setResult(context, result?.databaseValue ?? .null)
                } catch let error as DatabaseError {
                    sqlite3_result_error(context, error.message, -1)
                    sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            nil,
            nil,
            { box in
                // SQLite calls this when the function is replaced or the connection closes.
                if let box {
                    Unmanaged<FunctionBox>.fromOpaque(box).release()
                }
            }
        )
        // On failure sqlite3_create_function_v2 has already called the destructor.
        try connection.check(code)
    }
}

/// Holds a function's Swift body for SQLite's user-data pointer (retained until SQLite's destructor releases it).
private final class FunctionBox {
    let body: ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?

    init(_ body: @escaping ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?) {
        self.body = body
    }
}

private func setResult(_ context: OpaquePointer?, _ value: DatabaseValue) {
    switch value {
    case .null:
        sqlite3_result_null(context)
    case .integer(let int):
        sqlite3_result_int64(context, int)
    case .real(let double):
        sqlite3_result_double(context, double)
    case .text(let text):
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress, chars.count > 0 else {
                    // A NULL pointer would make the result NULL instead of empty text.
                    sqlite3_result_text64(context, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
                    return
                }
                sqlite3_result_text64(
                    context,
                    base,
                    sqlite3_uint64(chars.count),
                    csqlite_transient(),
                    UInt8(SQLITE_UTF8)
                )
            }
        }
    case .blob(let data):
        if data.isEmpty {
            sqlite3_result_zeroblob(context, 0)
        } else {
            data.withUnsafeBytes { bytes in
                sqlite3_result_blob64(context, bytes.baseAddress, sqlite3_uint64(bytes.count), csqlite_transient())
            }
        }
    }
}

extension DatabaseValue {
    /// Reads an `sqlite3_value*` (a function argument) with its storage class.
    init(sqliteValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            self = .text(
                String(decoding: UnsafeRawBufferPointer(start: count > 0 ? text : nil, count: count), as: UTF8.self)
            )
        case SQLITE_BLOB:
            let blob = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            self = .blob(count > 0 ? Data(bytes: blob!, count: count) : Data())
        default:
            self = .null
        }
    }
}
