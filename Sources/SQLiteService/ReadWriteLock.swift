#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value read far more often than it is changed, behind a `pthread_rwlock_t`.
///
/// Readers share the lock and never wait for each other, only for a writer in the middle of a replacement (a few
/// instructions). `Synchronization.Mutex` would serialize the readers too, and on Linux it is a priority-inheritance
/// futex that sleeps in the kernel whenever two threads meet, which made it one of the hottest spots of a point
/// query.
///
/// `@unchecked Sendable`: `value` is only read under the read lock and only written under the write lock.
///
/// Related documentation: <https://pubs.opengroup.org/onlinepubs/9699919799/functions/pthread_rwlock_rdlock.html>
final class ReadWriteLock<Value: Sendable>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        let code = pthread_rwlock_init(lock, nil)
        precondition(code == 0, "pthread_rwlock_init failed (\(code))")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// A copy of the value (for a class, the reference), taken under the read lock.
    func read() -> Value {
        withReadLock { $0 }
    }

    /// Runs `body` on the value under the read lock (without copying it first).
    func withReadLock<Result>(_ body: (Value) -> Result) -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(value)
    }

    /// Replaces the value with what `body` makes of it, under the write lock.
    func update(_ body: (Value) -> Value) {
        withWriteLock { $0 = body($0) }
    }

    /// Runs `body` with the value under the write lock, for changes in place.
    func withWriteLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(&value)
    }
}
