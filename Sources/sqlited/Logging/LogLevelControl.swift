import Logging
import Synchronization

/// The daemon-wide log level, shared by every logger so that a reload (SIGHUP) changes it at once.
final class LogLevelControl: Sendable {
    /// The level's index in `levels`. An atomic, not a `Mutex`: every log call reads it (on every
    /// request, from every event loop), and a contended `Mutex` on Linux sleeps in the kernel.
    private let level: Atomic<Int>

    init(_ level: Logger.Level) {
        self.level = Atomic(Self.index(of: level))
    }

    var current: Logger.Level {
        get { Self.levels[level.load(ordering: .relaxed)] }
        set { level.store(Self.index(of: newValue), ordering: .relaxed) }
    }

    private static let levels = Logger.Level.allCases

    private static func index(of level: Logger.Level) -> Int {
        levels.firstIndex(of: level) ?? 0
    }
}
