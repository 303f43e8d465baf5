internal import CSQLite
import Synchronization

/// Interrupts the statements of one connection from any thread.
///
/// `sqlite3_interrupt` is thread-safe but must not race with `sqlite3_close`; the handle's mutex orders the two
/// (the database clears the handle under the lock before closing). After the connection closes, `interrupt()` does
/// nothing.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/interrupt.html>
public final class InterruptHandle: Sendable {
    /// An `sqlite3*` that may cross threads: it is only used for `sqlite3_interrupt`, under `InterruptHandle.state`'s
    /// lock, and cleared under that lock before the connection closes.
    struct Pointer: @unchecked Sendable {
        let handle: OpaquePointer
    }

    private let state = Mutex<Pointer?>(nil)

    init() {}

    /// Stops the running statement, if any, with `SQLITE_INTERRUPT` (``DatabaseError/Kind-swift.enum/interrupted``).
    public func interrupt() {
        state.withLock { pointer in
            if let pointer {
                sqlite3_interrupt(pointer.handle)
            }
        }
    }

    func attach(_ handle: OpaquePointer) {
        state.withLock { $0 = Pointer(handle: handle) }
    }

    func detach() {
        state.withLock { $0 = nil }
    }
}
