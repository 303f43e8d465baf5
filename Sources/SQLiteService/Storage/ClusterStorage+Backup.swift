import DqliteClient
import DqliteCluster
import Foundation
import SQLiteEngine

extension ClusterStorage {
    /// The name backup files are named after: the cluster's database.
    var backupBaseName: String { writer.options.database + ".db" }

    /// `POST /backup` on the cluster: the leader's database through DUMP, as one SQLite file at `path`.
    ///
    /// DUMP answers the database file and its WAL, whole, in one message (so the database's size is bounded by
    /// the client's message limit, 64 MiB by default). Both are written beside `path`, opened with SQLite,
    /// checkpointed into the main file and switched to a rollback journal, so that the backup is one ordinary
    /// database file, like the local backend's; it then takes its name. It holds every write the leader had
    /// committed when it answered.
    func backup(to path: String, metrics: ServiceMetrics?) throws(APIError) {
        let files = try dumpFromLeader()
        guard let main = files.first, main.bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            throw .internal("the leader's DUMP did not return a database file")
        }
        let partial = path + ".partial"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: partial + suffix)
            }
        }
        do {
            try Data(main.bytes).write(to: URL(fileURLWithPath: partial))
            if files.count > 1, !files[1].bytes.isEmpty {
                try Data(files[1].bytes).write(to: URL(fileURLWithPath: partial + "-wal"))
            }
            let db = try Database(path: partial)
            _ = try db.checkpoint(.truncate)
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.close()
            try FileManager.default.moveItem(atPath: partial, toPath: path)
        } catch {
            throw .internal("the backup could not be written")
        }
    }

    /// DUMP of the service's database, asked of the leader this node knows.
    private func dumpFromLeader() throws(APIError) -> [DqliteFile] {
        let leader: String
        do {
            guard let address = try status().leaderAddress else {
                throw APIError.unavailable("this node knows no leader of the cluster", retryAfter: 1)
            }
            leader = address
        } catch let error as APIError {
            throw error
        } catch {
            throw .unavailable("this node's dqlite node does not answer", retryAfter: 1)
        }
        do {
            let connection = try DqliteConnection(address: leader, options: writer.options.connection)
            defer { connection.close() }
            return try connection.dump(writer.options.database)
        } catch {
            throw .unavailable("the leader did not answer the backup's DUMP", retryAfter: 1)
        }
    }
}
