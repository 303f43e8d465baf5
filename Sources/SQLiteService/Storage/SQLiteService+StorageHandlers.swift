import HTTPServer

/// The handlers ``RouteTable`` names for the endpoints that still come in a local and a cluster form (the writes,
/// `/health`, maintenance: `SQLiteService+Cluster*.swift`), each choosing its storage's. The reads are written once
/// over ``Storage``.
extension SQLiteService {
    /// `POST /update` on a handler thread (group commit off, a large body, or the cluster).
    func updateResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local: try run(update(request.body, limits: settings.limits), metrics: settings.options.metrics)
        case .cluster(let cluster): try clusterUpdate(request.body, limits: settings.limits, cluster: cluster)
        }
    }

    /// `POST /batch` on a handler thread.
    func batchResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local: try run(batch(request.body, limits: settings.limits), metrics: settings.options.metrics)
        case .cluster(let cluster): try clusterBatch(request.body, limits: settings.limits, cluster: cluster)
        }
    }

    /// `POST /transaction` on a handler thread.
    func transactionResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local: try run(transaction(request.body, limits: settings.limits), metrics: settings.options.metrics)
        case .cluster(let cluster): try clusterTransaction(request.body, limits: settings.limits, cluster: cluster)
        }
    }

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

    /// A Tables write (`POST`, `PATCH`, `DELETE` under `/tables`) on a handler thread.
    func tablesWriteResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local:
            return try run(tablesWrite(request, limits: settings.limits), metrics: settings.options.metrics)
        case .cluster(let cluster):
            return try clusterTablesWrite(request, limits: settings.limits, cluster: cluster)
        }
    }
}
