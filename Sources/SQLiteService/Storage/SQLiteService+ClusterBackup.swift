import DqliteClient
import DqliteCluster
import Foundation
import SQLiteEngine

extension SQLiteService {
    /// `POST /backup` on the cluster backend: the leader's database through DUMP, as one SQLite file.
    ///
    /// DUMP answers the database file and its WAL, whole, in one message (so the database's size is bounded by
    /// the client's message limit, 64 MiB by default). Both are written beside the backup's name, opened with
    /// SQLite, checkpointed into the main file and switched to a rollback journal, so that the backup is one
    /// ordinary database file, like the local backend's; it then takes its name. It holds every write the leader
    /// had committed when it answered.
    func writeClusterBackup(into directory: String, cluster: ClusterStorage) throws(APIError) -> (String, Int64) {
        let databaseName = cluster.writer.options.database
        let (name, path) = try newBackupFile(in: directory, databasePath: databaseName + ".db")
        let files = try dumpFromLeader(cluster)
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
            logger.error("backup failed", metadata: ["file": "\(name)", "error": "\(error)"])
            throw .internal("the backup could not be written")
        }
        return (name, Self.fileSize(path))
    }

    /// DUMP of the service's database, asked of the leader this node knows.
    private func dumpFromLeader(_ cluster: ClusterStorage) throws(APIError) -> [DqliteFile] {
        let leader: String
        do {
            guard let address = try cluster.status().leaderAddress else {
                throw APIError.unavailable("this node knows no leader of the cluster", retryAfter: 1)
            }
            leader = address
        } catch let error as APIError {
            throw error
        } catch {
            throw .unavailable("this node's dqlite node does not answer", retryAfter: 1)
        }
        do {
            let connection = try DqliteConnection(address: leader, options: cluster.writer.options.connection)
            defer { connection.close() }
            return try connection.dump(cluster.writer.options.database)
        } catch {
            logger.error("DUMP failed", metadata: ["leader": "\(leader)", "error": "\(error)"])
            throw .unavailable("the leader did not answer the backup's DUMP", retryAfter: 1)
        }
    }
}
