import Logging
import SQLiteEngine

/// Applies the migrations directory at start, after the pool opens and before the listeners accept (so `READY=1`
/// comes after it).
///
/// The migration engine (`Migrations` in SQLiteService) is developed on its own branch; until it is merged this
/// build refuses a configured `migrations.directory` rather than start without the schema it asks for.
enum MigrationStep {
    /// Applies pending migrations and returns the names of the files applied.
    static func apply(directory: String, pool: DatabasePool, logger: Logger) throws -> [String] {
        // Merge point: `try Migrations(directory: directory).apply(to: pool, logger: logger)`.
        throw StartupError("migrations.directory is set, but this build has no migration support")
    }
}
