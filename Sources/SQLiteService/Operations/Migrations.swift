import Foundation
public import Logging
public import SQLiteEngine

/// A directory of numbered `.sql` files that carry a database's schema forward, tracked with `PRAGMA user_version`.
///
/// Files are named `NNN_name.sql` or `NNN-name.sql` (leading zeros optional). Their numbers must run 1, 2, 3 …
/// without gaps or duplicates; other files (without the `.sql` extension, or hidden) are ignored. The database's
/// `user_version` is the number of the last file applied, so file `N` is pending while `user_version < N`.
///
/// Each file runs in its own `BEGIN IMMEDIATE` transaction together with the `PRAGMA user_version` update: a file
/// that fails is rolled back entirely and leaves the database at the previous version. A file must therefore not
/// contain `BEGIN`, `COMMIT`, `END` or `ROLLBACK` (savepoints are fine). Statements run on the pool's writer, so a
/// pool prepared with ``SQLiteService/prepareConnection(_:role:limits:)`` applies the service's SQL policy to them
/// too (no `ATTACH`, no pragma outside the allow list).
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_user_version>
public struct Migrations: Sendable {
    /// One migration file.
    public struct File: Sendable, Hashable {
        /// The file's number, the `user_version` it brings the database to.
        public var version: Int
        /// The file name, such as `001_create_users.sql`.
        public var name: String
        /// The SQL it runs.
        public var sql: String
    }

    /// The directory given at creation.
    public let directory: String
    /// The files in order of their numbers.
    public let files: [File]

    /// Lists and reads the migration files of `directory`.
    ///
    /// - Throws: ``MigrationError`` when the directory cannot be read, a `.sql` file's name does not start with a
    ///   number followed by `_` or `-`, a number is used twice, the numbers do not run from 1 without a gap, or a
    ///   file is not UTF-8 text.
    public init(directory: String) throws {
        self.directory = directory
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(file: nil, message: "cannot read the migrations directory \(directory)")
        }
        var byVersion: [Int: String] = [:]
        for name in names where name.hasSuffix(".sql") && !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            guard let version = Self.version(ofFileNamed: name) else {
                throw MigrationError(
                    file: name,
                    message: "the name must be a number, then _ or -, then a name, such as 001_create.sql"
                )
            }
            if let other = byVersion[version] {
                let pair = [other, name].sorted()
                throw MigrationError(file: pair[1], message: "number \(version) is also used by \(pair[0])")
            }
            byVersion[version] = name
        }
        var files: [File] = []
        for (expected, version) in byVersion.keys.sorted().enumerated() {
            let name = byVersion[version]!
            guard version == expected + 1 else {
                let message =
                    expected == 0
                    ? "numbers must start at 1, but the first file is number \(version)"
                    : "number \(expected + 1) is missing before this file"
                throw MigrationError(file: name, message: message)
            }
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MigrationError(file: name, message: "the file cannot be read")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw MigrationError(file: name, message: "the file is not UTF-8 text")
            }
            files.append(File(version: version, name: name, sql: sql))
        }
        self.files = files
    }

    /// The number at the start of a migration file name (`007_x.sql` → 7), or nil when the name does not follow the
    /// pattern.
    static func version(ofFileNamed name: String) -> Int? {
        let stem = name.dropLast(".sql".count)
        let digits = stem.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9, let separator = stem.dropFirst(digits.count).first,
            separator == "_" || separator == "-", stem.count > digits.count + 1
        else {
            return nil
        }
        return Int(digits)
    }

    /// The number of the last file (0 when there is none).
    public var latestVersion: Int {
        files.last?.version ?? 0
    }

    /// Which files the database has applied and which are pending.
    ///
    /// - Throws: ``MigrationError`` when `user_version` cannot be read.
    public func status(of pool: DatabasePool) throws -> MigrationStatus {
        let current: Int
        do {
            current = try pool.read { db in Int(try db.int64(sql: "PRAGMA user_version") ?? 0) }
        } catch {
            throw MigrationError(
                file: nil,
                message: "cannot read PRAGMA user_version: \(Self.message(of: error, db: nil))"
            )
        }
        return MigrationStatus(
            currentVersion: current,
            latestVersion: latestVersion,
            applied: files.filter { $0.version <= current }.map(\.name),
            pending: files.filter { $0.version > current }.map(\.name)
        )
    }

    /// Applies the pending files in order, each in its own transaction.
    ///
    /// - Returns: The names of the files applied now (empty when the database was up to date).
    /// - Throws: ``MigrationError`` naming the failing file and carrying SQLite's message; the files before it stay
    ///   applied and the database is at the version of the last of them. Also thrown, before anything runs, when the
    ///   database's `user_version` is above the last file's number (a later release migrated it).
    public func apply(to pool: DatabasePool, logger: Logger) throws -> [String] {
        let status = try status(of: pool)
        if status.isAhead {
            throw MigrationError(
                file: nil,
                message: "the database is at version \(status.currentVersion), "
                    + "newer than the last migration (\(latestVersion))"
            )
        }
        var applied: [String] = []
        for file in files where file.version > status.currentVersion {
            let ran: Bool
            do {
                ran = try pool.writeInTransaction(.immediate) { db in try Self.run(file, on: db) }
            } catch let error as MigrationError {
                logger.error("migration failed", metadata: ["file": "\(file.name)", "error": "\(error.message)"])
                throw error
            } catch {
                // A failed COMMIT (disk full, I/O error) also lands here: the transaction was rolled back.
                let failure = MigrationError(file: file.name, message: Self.message(of: error, db: nil))
                logger.error("migration failed", metadata: ["file": "\(file.name)", "error": "\(failure.message)"])
                throw failure
            }
            if ran {
                logger.info("applied migration", metadata: ["file": "\(file.name)", "version": "\(file.version)"])
                applied.append(file.name)
            }
        }
        return applied
    }

    /// Runs `file` and sets `user_version`, inside the caller's transaction; returns false when another process
    /// applied the file meanwhile.
    private static func run(_ file: File, on db: Database) throws -> Bool {
        // Read again under the write lock: another process may have migrated since `status(of:)`.
        let current = Int(try db.int64(sql: "PRAGMA user_version") ?? 0)
        if current >= file.version {
            return false
        }
        guard current == file.version - 1 else {
            throw MigrationError(
                file: file.name,
                message: "the database is at version \(current), expected \(file.version - 1)"
            )
        }
        let statements = db.statements(in: file.sql)
        while true {
            let statement: Statement
            do {
                guard let next = try statements.next() else { break }
                statement = next
            } catch let error as DatabaseError where error.kind == .emptyStatement {
                break  // only comments remain
            } catch {
                throw MigrationError(file: file.name, message: message(of: error, db: db))
            }
            if TransactionControl.classify(statement.sql) == .transaction {
                throw MigrationError(
                    file: file.name,
                    message: "BEGIN, COMMIT, END and ROLLBACK are not allowed: each file runs in its own transaction"
                )
            }
            do {
                while try statement.step() {}
            } catch {
                throw MigrationError(file: file.name, message: message(of: error, db: db))
            }
        }
        if !db.isInTransaction {
            throw MigrationError(file: file.name, message: "the file ended the migration's transaction")
        }
        try db.execute(sql: "PRAGMA user_version = \(file.version)")
        return true
    }

    /// SQLite's message for `error`, with the SQL policy's reason when the policy denied a statement.
    private static func message(of error: any Error, db: Database?) -> String {
        guard let error = error as? DatabaseError else {
            return "\(error)"
        }
        if error.resultCode == .SQLITE_AUTH, let db, let reason = PolicyRegistry.shared.state(for: db)?.takeDenial() {
            return "\(error.message) (denied by the SQL policy: \(reason))"
        }
        return error.message
    }
}
