import HTTPServer

/// The handlers ``RouteTable`` names for the endpoints whose local and cluster forms differ by what the storage is
/// (`/health` also says whether a leader is known; maintenance runs on the local writer or the leader:
/// `SQLiteService+Cluster*.swift`). The reads are written once over ``Storage``, the writes over ``WriteSession``.
extension SQLiteService {
    /// `GET /health`.
    func healthResponse(_ settings: ServiceSettings) -> HTTPResponse {
        switch storage {
        case .local: health(isAvailable: settings.isAvailable)
        case .cluster(let cluster): clusterHealth(isAvailable: settings.isAvailable, cluster: cluster)
        }
    }

    /// `GET /cluster` (a cluster-only route).
    func clusterStatusResponse() throws(APIError) -> HTTPResponse {
        guard case .cluster(let cluster) = storage else { throw .notFound("no endpoint at GET /cluster") }
        return try clusterStatus(cluster)
    }

    /// `POST /admin/{operation}`.
    func maintenanceResponse(
        _ operation: MaintenanceOperation,
        _ request: HTTPRequest,
        _ settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse {
        let maintenance = try Self.maintenanceRequest(operation, body: request.body)
        switch storage {
        case .local: return try localMaintenance(maintenance, metrics: settings.options.metrics)
        case .cluster(let cluster): return try clusterMaintenance(maintenance, cluster: cluster)
        }
    }
}
