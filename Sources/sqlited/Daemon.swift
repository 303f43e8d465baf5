import Dispatch
import DqliteCluster
import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A started daemon: reacts to signals (SIGTERM/SIGINT stop, SIGHUP reloads) and pets the watchdog.
///
/// Signal handling runs on one serial queue, so a reload and a stop never overlap.
final class Daemon: Sendable {
    private struct State {
        var configuration: DaemonConfiguration
        var stopping = false
        var signalSource: SignalSource?
        var watchdog: Watchdog?
    }

    let runner: ServerRunner
    /// The local database, or nil in cluster mode.
    let pool: DatabasePool?
    /// The embedded dqlite node in cluster mode, or nil.
    let member: ClusterMember?
    let service: SQLiteService
    let server: HTTPServer
    /// Automatic checkpoints and `PRAGMA optimize`; stopped before the database closes (nil in cluster mode).
    let maintenance: MaintenanceScheduler?
    /// The background deletion of expired `Idempotency-Key` rows; stopped before the database closes.
    let idempotencyExpiry: IdempotencyExpiryScheduler?
    let logger: Logger
    let notifier: SystemdNotifier
    let levelControl: LogLevelControl
    /// Where log lines go; flushed before telling systemd a reload is done, so that whoever waits for that sees
    /// the reload's messages.
    let logSink: LogSink?
    /// The listeners other machines can reach (see ``ListenerExposure``): a reload that removes every token while
    /// there are some is refused unless `auth.allow_unauthenticated_remote` is true.
    let remoteListeners: [String]
    private let state: Mutex<State>
    private let signalQueue = DispatchQueue(label: "sqlited.signals")
    private let stopped = DispatchSemaphore(value: 0)

    init(
        runner: ServerRunner,
        pool: DatabasePool?,
        member: ClusterMember? = nil,
        service: SQLiteService,
        server: HTTPServer,
        maintenance: MaintenanceScheduler?,
        idempotencyExpiry: IdempotencyExpiryScheduler? = nil,
        logger: Logger,
        notifier: SystemdNotifier,
        levelControl: LogLevelControl,
        logSink: LogSink? = nil,
        remoteListeners: [String]
    ) {
        self.runner = runner
        self.pool = pool
        self.member = member
        self.service = service
        self.server = server
        self.maintenance = maintenance
        self.idempotencyExpiry = idempotencyExpiry
        self.logger = logger
        self.notifier = notifier
        self.levelControl = levelControl
        self.logSink = logSink
        self.remoteListeners = remoteListeners
        self.state = Mutex(State(configuration: runner.configuration))
    }

    /// The configuration in force (the started one plus reloaded live changes).
    var configuration: DaemonConfiguration {
        state.withLock { $0.configuration }
    }

    func setConfiguration(_ configuration: DaemonConfiguration) {
        state.withLock { $0.configuration = configuration }
    }

    /// Turns SIGTERM and SIGINT into ``stop(signal:)`` and SIGHUP into ``reload()``, on the signal queue.
    func installSignalHandlers() throws {
        let source = try SignalPipe.start(signals: [SIGTERM, SIGINT, SIGHUP], queue: signalQueue) { [self] number in
            if number == SIGHUP {
                reload()
            } else {
                stop(signal: number)
            }
        }
        state.withLock { $0.signalSource = SignalSource(source: source) }
    }

    /// Pings the watchdog while the server runs and the database answers a trivial read.
    func startWatchdog(interval: Duration) {
        logger.info("watchdog enabled", metadata: ["interval": "\(interval)"])
        let watchdog = Watchdog(interval: interval, notifier: notifier) { [self] in
            guard service.isAvailable else { return false }
            guard let pool else {
                // Cluster mode: the node must answer (it may be between leaders: requests then wait or fail 503).
                return (try? member?.clusterInfo()) != nil
            }
            do {
                // Through a reader, like a request, so a pool that no longer serves reads stops the pings.
                _ = try pool.read { db in try db.scalar(sql: "SELECT 1") }
                return true
            } catch {
                logger.warning("watchdog check failed", metadata: ["error": "\(error)"])
                return false
            }
        }
        state.withLock { $0.watchdog = watchdog }
    }

    /// Begins the graceful stop; ``waitUntilStopped()`` finishes it.
    func stop(signal: Int32) {
        let (first, watchdog, grace) = state.withLock { state in
            defer { state.stopping = true }
            return (!state.stopping, state.watchdog, state.configuration.shutdownTimeout)
        }
        guard first else {
            logger.notice("already stopping", metadata: ["signal": "\(signal)"])
            return
        }
        // Unhealthy before STOPPING=1 is announced, so that nobody told "stopping" can still see /health ok.
        service.isAvailable = false
        notifier.notify("STOPPING=1\nSTATUS=stopping")
        logger.info("stopping", metadata: ["signal": "\(signal)", "timeout": "\(grace)"])
        watchdog?.cancel()
        // Open interactive transactions still take requests (and may commit) within the shutdown timeout: the
        // server goes on serving until they end or the time is up, then they are rolled back.
        service.beginClosingTransactions()
        guard service.openTransactionCount > 0 else {
            service.rollBackTransactions()
            server.shutdown(gracePeriod: grace) { [stopped] in stopped.signal() }
            return
        }
        logger.info("waiting for open transactions", metadata: ["open": "\(service.openTransactionCount)"])
        let started = ContinuousClock.now
        DispatchQueue.global().async { [self] in
            while service.openTransactionCount > 0, ContinuousClock.now - started < grace {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let left = service.openTransactionCount
            service.rollBackTransactions()
            if left > 0 { logger.notice("rolled back open transactions", metadata: ["count": "\(left)"]) }
            let remaining = max(.zero, grace - (ContinuousClock.now - started))
            server.shutdown(gracePeriod: remaining) { [stopped] in stopped.signal() }
        }
    }

    /// Blocks until a stop signal has been handled and the server has closed every connection, then runs
    /// `PRAGMA optimize`, checkpoints the WAL into the database file and closes it.
    func waitUntilStopped() {
        stopped.wait()
        idempotencyExpiry?.stop()
        guard let pool, let maintenance else {
            leaveCluster()
            return
        }
        maintenance.stop()
        maintenance.optimizeBeforeClose()
        do {
            let (walFrames, checkpointed) = try pool.write { db in try db.checkpoint(.truncate) }
            logger.info("WAL checkpointed", metadata: ["frames": "\(walFrames)", "checkpointed": "\(checkpointed)"])
        } catch {
            logger.warning("final WAL checkpoint failed", metadata: ["error": "\(error)"])
        }
        do {
            try pool.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
        logger.info("sqlited stopped")
    }

    /// Cluster mode's end: leadership handed to another voter when this node holds it, then the node stops; it
    /// stays a member, so that it rejoins when it starts again with its data directory.
    private func leaveCluster() {
        if let member {
            do {
                let outcome = try member.leave(remove: false)
                logger.info(
                    "dqlite node stopped",
                    metadata: ["leadership_transferred_to": "\(outcome.transferredTo.map(String.init) ?? "-")"]
                )
            } catch {
                logger.error("stopping the dqlite node failed", metadata: ["error": "\(error)"])
            }
        }
        logger.info("sqlited stopped")
    }
}

/// Keeps the signal pipe's read source alive for the daemon's lifetime.
///
/// `@unchecked Sendable`: the reference never changes after creation, and Dispatch sources are thread-safe objects.
private struct SignalSource: @unchecked Sendable {
    let source: any DispatchSourceRead
}
