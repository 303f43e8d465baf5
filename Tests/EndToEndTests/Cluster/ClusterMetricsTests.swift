import LoopbackTestSupport
import Testing

/// The cluster series of `GET /metrics` on three real `sqlited` processes (``SharedCluster``).
@Suite struct ClusterMetricsTests {
    /// The value of the sample `series` (name with labels, as printed) in a Prometheus text body, or nil.
    private func sample(_ series: String, in body: String) -> Double? {
        for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    /// Every node reports itself a voter (and no other role), exactly one node reports being the leader, the one
    /// `GET /cluster` names; a request through a node adds round trips to the leader (reads on the read client,
    /// writes on the write client) and a read batch; the retry, unknown-outcome and leader-change counters are exported.
    @Test func metrics_reportRoleLeaderAndRoundTrips() throws {
        let cluster = try SharedCluster.get()
        let leader = try cluster.leaderID()
        var leaders: [Int] = []
        for node in cluster.nodes {
            let client = try cluster.client(node.id)
            let table = uniqueTableName("cm")
            try client.ok("/update", #"{"sql": "CREATE TABLE \#(table)(v INTEGER)"}"#)
            try client.ok("/query", #"{"sql": "SELECT count(*) FROM \#(table)"}"#)
            let response = try client.get("/metrics")
            #expect(response.status == 200)
            let body = response.bodyText
            #expect(sample(#"sqlited_cluster_role{role="voter"}"#, in: body) == 1, "node \(node.id)")
            for role in ["standby", "spare", "none"] {
                #expect(sample(#"sqlited_cluster_role{role="\#(role)"}"#, in: body) == 0, "node \(node.id)")
            }
            // The `/query` above went to the leader in a batch of reads.
            #expect((sample("sqlited_cluster_read_batch_reads_count", in: body) ?? 0) >= 1, "node \(node.id)")
            if sample("sqlited_cluster_is_leader", in: body) == 1 {
                leaders.append(node.id)
            }
            for client in ["read", "write"] {
                let count = sample(#"sqlited_cluster_round_trip_seconds_count{client="\#(client)"}"#, in: body)
                #expect((count ?? 0) >= 1, "node \(node.id), \(client) client")
                for counter in ["leader_changes", "retries", "outcome_unknown"] {
                    let series = #"sqlited_cluster_\#(counter)_total{client="\#(client)"}"#
                    #expect(sample(series, in: body) != nil, "node \(node.id): \(series)")
                }
            }
        }
        #expect(leaders == [leader])
    }
}
