import Glibc
import ThreadStorage

/// The `Date` field value in IMF-fixdate form (RFC 9110 §5.6.7), formatted at most once per second per thread.
///
/// The cache is per thread: one shared behind a lock was the most contended lock in the server (every response
/// takes it, and Swift's `Mutex` on Linux sleeps in the kernel as soon as it is contended).
enum HTTPDate {
    /// One thread's formatted second. Only its own thread touches it.
    private final class Cache {
        var second = -1
        var bytes: [UInt8] = []
    }

    private static let caches = PerThread { Cache() }

    /// Calls `body` with the current time's bytes (`Sun, 06 Nov 1994 08:49:37 GMT`), from the thread's cache.
    static func withCurrentBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        current().bytes.withUnsafeBufferPointer(body)
    }

    /// This thread's cache, formatted for the current second.
    private static func current() -> Cache {
        let cache = caches.value
        let second = time(nil)
        if cache.second != second {
            cache.second = second
            cache.bytes = Array(format(second).utf8)
        }
        return cache
    }

    static func format(_ seconds: Int) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
