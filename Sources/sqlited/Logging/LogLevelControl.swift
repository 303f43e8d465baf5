import Logging
import Synchronization

/// The daemon-wide log level, shared by every logger so that a reload (SIGHUP) changes it at once.
final class LogLevelControl: Sendable {
    private let level: Mutex<Logger.Level>

    init(_ level: Logger.Level) {
        self.level = Mutex(level)
    }

    var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}
