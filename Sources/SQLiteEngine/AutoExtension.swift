internal import CSQLite
import Synchronization

/// Runs Swift code on every connection SQLite opens in this process, whoever opens it (`sqlite3_auto_extension`):
/// the way to set up connections that a C library opens itself with the same libsqlite3, such as dqlite's.
///
/// A handler runs on the opening thread, inside `sqlite3_open_v2`, after SQLite's built-in extensions and before
/// the opener runs any statement. It gets the connection as a borrowed ``Database`` (see
/// ``Database/init(borrowing:)``): it may install an authorizer, functions, limits and options
/// (``Database/applyConnectionOptions(_:)``); it must not prepare statements on it (the opener may close it with
/// `sqlite3_close`, which fails while statements are left), and it decides itself which connections to touch (by
/// ``Database/vfsName``, for example). Handlers also run for the connections of ``Database`` objects, before their
/// own set-up. A handler that throws makes the open fail: `sqlite3_open_v2` returns `SQLITE_ERROR` and the error's
/// description.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/auto_extension.html>
public enum AutoExtension {
    /// A handler of new connections.
    public typealias Handler = @Sendable (Database) throws -> Void

    private struct State {
        var handlers: [Handler] = []
        var isRegistered = false
    }

    private static let state = Mutex(State())

    /// Adds `handler` for every connection opened from now on; handlers run in the order they were added. There is
    /// no removal: add a handler once, and let it read what may change from state of its own.
    ///
    /// - Throws: ``DatabaseError`` when SQLite refuses the registration (out of memory).
    public static func add(_ handler: @escaping Handler) throws {
        try state.withLock { (state: inout State) throws(DatabaseError) in
            if !state.isRegistered {
                let code = sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self))
                guard code == SQLITE_OK else {
                    throw DatabaseError(
                        kind: .sqlite,
                        extendedResultCode: ResultCode(rawValue: code),
                        message: String(cString: sqlite3_errstr(code))
                    )
                }
                state.isRegistered = true
            }
            state.handlers.append(handler)
        }
    }

    /// Runs the handlers on a new connection. Handlers may open connections themselves (this runs again for those):
    /// SQLite calls auto-extensions without holding its own lock, and the handlers are copied out of ours first.
    static func run(on handle: OpaquePointer) -> String? {
        let handlers = state.withLock { $0.handlers }
        let database = Database(borrowing: handle)
        do {
            for handler in handlers {
                try handler(database)
            }
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// The C entry point SQLite calls for each new connection: `int (*)(sqlite3*, char **pzErrMsg, const
    /// sqlite3_api_routines*)`; a message for `pzErrMsg` must come from `sqlite3_malloc`.
    private static let entryPoint:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeRawPointer?
        ) -> Int32 = { handle, errorMessage, _ in
            guard let handle, let message = run(on: handle) else { return SQLITE_OK }
            let bytes = Array(message.utf8CString)
            if let errorMessage, let copy = sqlite3_malloc64(UInt64(bytes.count)) {
                bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                errorMessage.pointee = copy.assumingMemoryBound(to: CChar.self)
            }
            return SQLITE_ERROR
        }
}
