import Dispatch
public import Logging
public import SQLiteEngine
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the maintenance a long-lived server needs without an operator: a `TRUNCATE` checkpoint when the WAL has
/// grown past its limit, and `PRAGMA optimize` at an interval and when the database closes.
///
/// SQLite's own automatic checkpoints (passive, after commits) copy the WAL into the database but never shrink the
/// file, and a reader that holds a snapshot while writes go on makes them stop part way, so the WAL of a busy
/// server can grow without bound. Once a second this looks at the WAL's size (a `stat`); past the limit it takes
/// the writer between write requests (`DatabasePool.write`, which waits for the one in progress) and runs a
/// `TRUNCATE` checkpoint that waits at most ``MaintenanceSchedule/checkpointWait`` for readers on older snapshots
/// — so writes pause for at most that long. A checkpoint that cannot complete is counted as busy and tried again
/// after a pause that doubles up to a minute.
///
/// `@unchecked Sendable`: the timer is a Dispatch source (thread-safe, created once and never replaced); everything
/// that changes lives behind `state`.
public final class MaintenanceScheduler: @unchecked Sendable {
    private let pool: DatabasePool
    private let schedule: MaintenanceSchedule
    private let metrics: ServiceMetrics?
    private let logger: Logger
    private let queue = DispatchQueue(label: "sqlited.maintenance")
    private let timer: any DispatchSourceTimer
    private let state = Mutex(State())

    private struct State {
        var started = false
        var nextCheckpointAttempt = ContinuousClock.now
        var checkpointPause: Duration = .zero
        var nextOptimize: ContinuousClock.Instant?
    }

    public init(pool: DatabasePool, schedule: MaintenanceSchedule, metrics: ServiceMetrics?, logger: Logger) {
        self.pool = pool
        self.schedule = schedule
        self.metrics = metrics
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.tick() }
    }

    /// Starts the periodic checks (once; later calls do nothing).
    public func start() {
        let optimizeInterval = schedule.optimizeInterval
        let first = state.withLock { state in
            defer { state.started = true }
            state.nextOptimize = optimizeInterval > .zero ? .now + optimizeInterval : nil
            return !state.started
        }
        guard first else { return }
        let interval = DispatchTimeInterval.milliseconds(Int(schedule.checkInterval / .milliseconds(1)))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.resume()
    }

    /// Stops the checks and waits for one in progress to finish.
    public func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit {
        // A source that was never resumed must not be released suspended.
        if !state.withLock({ $0.started }) { timer.resume() }
        timer.cancel()
    }

    /// `PRAGMA optimize` before the database closes (SQLite's recommendation for long-lived connections).
    public func optimizeBeforeClose() {
        optimize(trigger: "close")
    }

    /// One check: the WAL's size, then whether an optimize is due. On the scheduler's queue.
    func tick() {
        let now = ContinuousClock.now
        let (checkpointDue, optimizeDue) = state.withLock { state in
            (now >= state.nextCheckpointAttempt, state.nextOptimize.map { now >= $0 } ?? false)
        }
        if checkpointDue, schedule.walSizeLimit > 0, Self.fileSize(pool.path + "-wal") > schedule.walSizeLimit {
            checkpoint()
        }
        if optimizeDue {
            optimize(trigger: "interval")
            state.withLock { $0.nextOptimize = .now + schedule.optimizeInterval }
        }
    }

    private func checkpoint() {
        let wait = schedule.checkpointWait
        do {
            let result = try pool.write { db in
                let busyTimeout = db.busyTimeout
                db.busyTimeout = wait
                defer { db.busyTimeout = busyTimeout }
                return try DatabaseMaintenance.checkpoint(db, mode: .truncate)
            }
            metrics?.maintenance.recordCheckpoint(result, trigger: "automatic")
            state.withLock { $0.checkpointPause = .zero }
            logger.info(
                "WAL over its size limit: checkpointed and truncated",
                metadata: ["frames": "\(result.checkpointedFrames)", "limit": "\(schedule.walSizeLimit)"]
            )
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            metrics?.maintenance.recordCheckpointBusy(trigger: "automatic")
            let pause = state.withLock { state in
                state.checkpointPause = min(max(state.checkpointPause * 2, .seconds(1)), .seconds(60))
                state.nextCheckpointAttempt = .now + state.checkpointPause
                return state.checkpointPause
            }
            logger.notice(
                "WAL over its size limit, but readers kept the checkpoint from completing; trying again later",
                metadata: ["retry_in": "\(pause)"]
            )
        } catch {
            metrics?.maintenance.recordCheckpointError(trigger: "automatic")
            state.withLock { $0.nextCheckpointAttempt = .now + .seconds(60) }
            logger.warning("automatic WAL checkpoint failed", metadata: ["error": "\(error)"])
        }
    }

    private func optimize(trigger: String) {
        do {
            try pool.write { db in try DatabaseMaintenance.optimize(db, analyze: false) }
            metrics?.maintenance.recordOptimize(trigger: trigger)
            logger.debug("PRAGMA optimize done", metadata: ["trigger": "\(trigger)"])
        } catch {
            logger.warning("PRAGMA optimize failed", metadata: ["trigger": "\(trigger)", "error": "\(error)"])
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }
}
