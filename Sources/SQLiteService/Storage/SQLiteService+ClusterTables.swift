import DqliteCluster
import HTTPServer

/// The Tables API on the cluster backend: the reads, with the local backend's checks, SQL and JSON; the rows come
/// from the leader through the read-only client.
extension SQLiteService {
    /// A request under `/tables`: the reads are answered as on the local backend, the tables and keys taken from
    /// this node's copy of the leader's schema (brought up to date first); a write (`POST`, `PATCH`, `DELETE`) is
    /// 501 `NOT_IMPLEMENTED` (see the README).
    func clusterTables(
        _ request: HTTPRequest,
        limits: ServiceLimits,
        cluster: ClusterStorage
    ) throws(APIError) -> HTTPResponse {
        guard let route = try TablesRoute.parse(rawPath: request.rawPath) else {
            throw Self.noEndpoint(request)
        }
        guard let read = try tablesRead(route, request, limits: limits) else {
            throw .notImplemented("writes of the Tables API are not available in cluster mode yet (see the README)")
        }
        let body = try cluster.readSchema.withSchema(refreshingFrom: cluster.reader) { db throws(APIError) in
            try read(.cluster(schema: db, reader: cluster.reader))
        }
        return Self.jsonResponse(body)
    }
}
