import Dispatch
import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import SQLiteService
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wires the database, the service and the HTTP server together, and runs them
/// until SIGTERM or SIGINT.
struct ServerRunner {
    let settings: ServerSettings

    func runUntilStopped() throws {
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

        let stopped = DispatchSemaphore(value: 0)
        let signals = Self.watchSignals([SIGTERM, SIGINT]) { signal in
            logger.info("stopping", metadata: ["signal": "\(signal)"])
            service.isAvailable = false
            server.shutdown(gracePeriod: .seconds(10)) {
                stopped.signal()
            }
        }
        stopped.wait()
        withExtendedLifetime(signals) {}

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

    /// Turns the given signals into calls of `handler` on a private queue.
    static func watchSignals(
        _ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void
    ) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "sqlited.signals")
        let once = Mutex(false)
        return signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let first = once.withLock { fired in
                    defer { fired = true }
                    return !fired
                }
                if first { handler(number) }
            }
            source.resume()
            return source
        }
    }
}
