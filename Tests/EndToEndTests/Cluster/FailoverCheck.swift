import Foundation
import Testing

/// One failover round's rows compared with what the writers were told, in each node's own copy of the database.
///
/// Reads in cluster mode go to the leader, so reading through each node would read one copy three times. Instead
/// each node in turn is made the leader (``SharedCluster/transferLeadership(to:timeoutSeconds:)``: Raft hands over
/// only to an up-to-date voter, which applies every committed entry before it serves a read) and the round's rows
/// are read through it, with a check that it was still the leader after the read. So the restarted old leader's copy
/// is checked as much as the survivors'.
struct FailoverCheck {
    /// Keys acknowledged (2xx) and missing on some node, as `node: key`.
    var lost: [String] = []
    /// Keys present more than once on some node, as `node: key ×count`.
    var duplicated: [String] = []
    /// Keys present on some node whose last answer said nothing was changed, as `node: key`.
    var phantom: [String] = []
    /// Answers other than 200 and 503.
    var unexpected: [String] = []
    var acknowledged = 0
    var acknowledgedAfterRetry = 0
    var unknown = 0
    var unknownPresent = 0
    var notChanged = 0
    var notChangedAnswers = 0

    init(cluster: SharedCluster, table: String, round: Int, ledger: FailoverLedger) throws {
        let outcomes = ledger.all
        notChangedAnswers = ledger.notChangedAnswers
        for (key, outcome) in outcomes {
            switch outcome {
            case .acknowledged(_, _, let retried):
                acknowledged += 1
                if retried { acknowledgedAfterRetry += 1 }
            case .notChanged: notChanged += 1
            case .unknown: unknown += 1
            case .unexpected(let answer): unexpected.append("\(key): \(answer)")
            }
        }
        var presentOnFirstNode: [String: Int] = [:]
        for id in 1...3 {
            try cluster.transferLeadership(to: id)
            let counts = try Self.rowCounts(through: cluster.client(id), table: table, round: round)
            #expect(try cluster.leaderID(asSeenBy: id) == id, "node \(id) was not the leader during its read")
            if id == 1 { presentOnFirstNode = counts }
            #expect(counts == presentOnFirstNode, "node \(id)'s copy differs from node 1's")
            for (key, count) in counts where count > 1 { duplicated.append("node \(id): \(key) ×\(count)") }
            for (key, outcome) in outcomes {
                switch outcome {
                case .acknowledged where counts[key] == nil: lost.append("node \(id): \(key)")
                case .notChanged where counts[key] != nil: phantom.append("node \(id): \(key)")
                default: break
                }
            }
        }
        unknownPresent =
            outcomes.filter { key, outcome in
                if case .unknown = outcome { presentOnFirstNode[key] != nil } else { false }
            }.count
    }

    /// One line for the test's output.
    var summary: String {
        "acknowledged \(acknowledged) (\(acknowledgedAfterRetry) after a retry), unknown \(unknown) "
            + "(\(unknownPresent) present), \(notChangedAnswers) answers \"nothing was changed\", "
            + "lost \(lost.count), duplicated \(duplicated.count) (over the 3 nodes' copies)"
    }

    /// How many times each of the round's keys is present, read through node `client` (the leader).
    private static func rowCounts(through client: HTTPTestClient, table: String, round: Int) throws -> [String: Int] {
        let response = try client.post(
            "/query",
            #"{"sql": "SELECT k, count(*) FROM \#(table) WHERE k LIKE ? GROUP BY k", "params": ["r\#(round)-%"], "#
                + #""shape": "arrays"}"#
        )
        guard response.status == 200 else {
            throw ClusterTestError("reading the round's rows: \(response.status) \(response.bodyText)")
        }
        let rows = try response.json()
        var counts: [String: Int] = [:]
        for row in rows["rows"]?.arrayValue ?? [] {
            guard let key = row[0]?.stringValue, let count = row[1]?.int64Value else {
                throw ClusterTestError("unexpected row \(row)")
            }
            counts[key] = Int(count)
        }
        return counts
    }
}
