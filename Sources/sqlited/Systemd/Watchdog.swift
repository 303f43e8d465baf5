import Dispatch
import Foundation
import Glibc

/// Pets the systemd watchdog (`WATCHDOG=1`) at half of `WATCHDOG_USEC`, but only after a health check passes, so a
/// daemon that can no longer serve (a wedged database, a stopped server) is restarted by systemd.
///
/// Related documentation: <https://www.freedesktop.org/software/systemd/man/latest/sd_watchdog_enabled.html>
///
/// `@unchecked Sendable`: its only state is an immutable reference to a Dispatch timer, and Dispatch sources are
/// thread-safe objects (`cancel()` may be called from any thread).
final class Watchdog: @unchecked Sendable {
    /// The interval systemd expects pings within, or `nil` when the watchdog is off for this process.
    static func interval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        // WATCHDOG_PID names the process the watchdog is for; a child that inherited the variable must not ping.
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return .microseconds(microseconds)
    }

    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "sqlited.watchdog")

    /// Starts pinging every `interval / 2` while `check` returns true.
    init(interval: Duration, notifier: SystemdNotifier, check: @escaping @Sendable () -> Bool) {
        let half = interval / 2
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: half.dispatchInterval, leeway: .milliseconds(10))
        timer.setEventHandler {
            if check() { notifier.notify("WATCHDOG=1") }
        }
        timer.resume()
    }

    /// Stops pinging (on shutdown: systemd's stop timeout applies then, not the watchdog).
    func cancel() {
        timer.cancel()
    }
}

extension Duration {
    /// This duration for Dispatch.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
