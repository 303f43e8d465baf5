import Logging
import SQLiteEngine
import SQLiteService

/// Applies the migrations directory at start, after the pool opens and before the listeners accept (so `READY=1`
/// comes after it).
enum MigrationStep {
    /// Applies pending migrations and returns the names of the files applied.
    ///
    /// - Throws: `MigrationError` naming the failing file and SQLite's message; the database then stays at the
    ///   version of the last file that succeeded.
    static func apply(directory: String, pool: DatabasePool, logger: Logger) throws -> [String] {
        try Migrations(directory: directory).apply(to: pool, logger: logger)
    }
}
