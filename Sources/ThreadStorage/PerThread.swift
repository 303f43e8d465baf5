public import Glibc

/// One value per thread: made on a thread's first use, kept for that thread only, released when the thread ends.
///
/// For per-request caches that must not be shared (a lock, or an atomic on a shared cache line, would cost more than
/// what they save): the HTTP `Date` bytes, the SQL text and the request log line's end last made on this thread.
///
/// `@unchecked Sendable`: the key is immutable after init and each value is touched by its own thread only.
public final class PerThread<Value: AnyObject>: @unchecked Sendable {
    @usableFromInline let key: pthread_key_t
    @usableFromInline let make: @Sendable () -> Value

    /// - Parameter make: Makes a thread's value on its first use there.
    public init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        self.key = key
        self.make = make
    }

    /// The calling thread's value. Inlinable: read on every request, where a call into this module for an
    /// unspecialized generic would cost more than the lookup itself.
    @inlinable public var value: Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
