import DqliteClient
import Foundation

extension SharedCluster {
    /// Makes node `id` the leader: asks the current leader (as node `id` sees it) to hand leadership over with the
    /// wire protocol's TRANSFER, until every node reports `id` as the leader.
    ///
    /// Raft hands leadership only to a voter whose log is up to date, and a new leader applies every committed
    /// entry before it answers a read, so a read served afterwards comes from node `id`'s own copy of the database.
    ///
    /// - Throws: ``ClusterTestError`` when that is not so within `timeoutSeconds` (a liveness failure).
    func transferLeadership(to id: Int, timeoutSeconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var lastProblem = ""
        while Date() < deadline {
            let leaders = [1, 2, 3].map { try? leaderID(asSeenBy: $0) }
            if leaders.allSatisfy({ $0 == id }) { return }
            if let leader = leaders[id - 1], leader != id {
                do {
                    let connection = try DqliteConnection(address: nodes[leader - 1].raftAddress)
                    defer { connection.close() }
                    try connection.transfer(to: UInt64(id))
                } catch {
                    // Not caught up yet, or the leader changed meanwhile: ask again.
                    lastProblem = "\(error)"
                }
            }
            usleep(100_000)
        }
        throw ClusterTestError("node \(id) did not become the leader within \(timeoutSeconds) s (\(lastProblem))")
    }

    /// Waits until node `id` answers `GET /health` with 200 (it knows a leader).
    ///
    /// - Throws: ``ClusterTestError`` when it does not within `timeoutSeconds` (a liveness failure).
    func waitUntilReady(_ id: Int, timeoutSeconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if (try? client(id).get("/health").status) == 200 { return }
            usleep(100_000)
        }
        throw ClusterTestError("node \(id) was not ready within \(timeoutSeconds) s")
    }
}
