import Dispatch
import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService

#if canImport(Glibc)
import Glibc
#endif

/// Wires the database, the service and the HTTP server together, and runs them
/// until SIGTERM or SIGINT.
struct ServerRunner {
    let settings: ServerSettings

    func runUntilStopped() throws {
        // First of all, before any thread starts: every thread created afterwards inherits the blocked mask, so
        // the signals stay pending until the waiting thread takes them, however early they arrive.
        let stopSignals = Self.blockSignals([SIGTERM, SIGINT])
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "sqlited")

        try Self.createParentDirectory(of: settings.databasePath)
        let limits = ServiceLimits()
        let pool = try Self.openPool(settings: settings, limits: limits)
        let service = SQLiteService(pool: pool, limits: limits, version: settings.version, logger: logger)

        var listeners: [ListenAddress] = [.tcp(host: settings.host, port: settings.port)]
        if let path = settings.unixSocketPath { listeners.append(.unix(path: path)) }
        var configuration = HTTPServerConfiguration()
        configuration.listeners = listeners
        configuration.serverHeader = "sqlited/\(settings.version)"
        let server = HTTPServer(configuration: configuration, handler: service, logger: logger)
        // Wait for the signals before the listening line goes out: a supervisor (or test) that reads it may send
        // SIGTERM at once.
        let stopped = DispatchSemaphore(value: 0)
        Self.waitForSignal(in: stopSignals) { signal in
            logger.info("stopping", metadata: ["signal": "\(signal)"])
            service.isAvailable = false
            server.shutdown(gracePeriod: .seconds(10)) {
                stopped.signal()
            }
        }
        try server.start()
        service.isAvailable = true

        for address in server.boundAddresses {
            // Tests and scripts read the real port from this line.
            let url = address.port == nil ? "\(address)" : "http://\(address)"
            FileHandle.standardError.write(Data("sqlited: listening on \(url)\n".utf8))
        }
        logger.info(
            "sqlited started",
            metadata: [
                "version": "\(settings.version)", "sqlite": "\(sqliteLibraryVersion)",
                "database": "\(settings.databasePath)", "readers": "\(settings.readerCount)",
            ])

        stopped.wait()

        do {
            _ = try pool.write { db in try db.checkpoint(.truncate) }
        } catch {
            logger.warning("final WAL checkpoint failed", metadata: ["error": "\(error)"])
        }
        try pool.close()
        logger.info("sqlited stopped")
    }

    /// The pool with WAL, `synchronous=FULL` (an acknowledged write survives
    /// power loss) and the service's policy on every connection.
    static func openPool(settings: ServerSettings, limits: ServiceLimits) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.synchronous = .full
        configuration.busyTimeout = .seconds(5)
        configuration.prepareDatabase = { db in
            SQLiteService.prepareConnection(db, role: db.isReadOnly ? .reader : .writer, limits: limits)
        }
        var poolConfiguration = DatabasePool.PoolConfiguration(configuration: configuration)
        poolConfiguration.maximumReaderCount = settings.readerCount
        return try DatabasePool(path: settings.databasePath, configuration: poolConfiguration)
    }

    static func createParentDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Blocks `signals` in the calling thread, and so in every thread it starts afterwards; returns their set.
    ///
    /// A blocked signal stays pending instead of taking its default action (ending the process), until
    /// ``waitForSignal(in:handler:)`` takes it. A `DispatchSource` for signals is not enough: its registration
    /// completes asynchronously, and a signal arriving in between is lost (with `SIG_IGN`) or kills the process.
    static func blockSignals(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return set
    }

    /// Calls `handler` once, on a dedicated thread, with the first of the blocked signals in `set` to arrive
    /// (`sigwait(2)`); later ones stay blocked and are ignored.
    static func waitForSignal(in set: sigset_t, handler: @escaping @Sendable (Int32) -> Void) {
        let thread = Thread {
            var set = set
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            handler(received)
        }
        thread.name = "sqlited.signals"
        thread.start()
    }
}
