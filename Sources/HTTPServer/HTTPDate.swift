import Glibc
import Synchronization

/// The `Date` field value in IMF-fixdate form (RFC 9110 §5.6.7), formatted at most once per second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// The current time as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func now() -> String {
        let second = time(nil)
        return cache.withLock { cached in
            if cached.second == second { return cached.text }
            let text = format(second)
            cached = (second, text)
            return text
        }
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
