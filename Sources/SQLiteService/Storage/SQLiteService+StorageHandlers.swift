import HTTPServer

/// The handlers ``RouteTable`` names, each choosing the local or the cluster implementation of its endpoint.
///
/// These are the last places that look at which storage the service runs on; the endpoints behind them still come
/// in a local and a cluster form (`SQLiteService+Cluster*.swift`), to be written once over a storage protocol.
extension SQLiteService {
    /// `POST /query`.
    func queryResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local: try query(request.body, limits: settings.limits, metrics: settings.options.metrics)
        case .cluster(let cluster): try clusterQuery(request.body, limits: settings.limits, cluster: cluster)
        }
    }

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

    /// `GET /schema`.
    func schemaResponse(_ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local:
            try schema(metrics: settings.options.metrics)
        case .cluster(let cluster):
            try clusterSchema(cluster) { db throws(APIError) in try Self.schemaBody(db) }
        }
    }

    /// `GET /schema/{table}`.
    func tableSchemaResponse(_ name: String, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local:
            try tableSchema(name, metrics: settings.options.metrics)
        case .cluster(let cluster):
            try clusterSchema(cluster) { db throws(APIError) in try Self.tableSchemaBody(name, db) }
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

    /// A Tables read (`GET` under `/tables`) on a handler thread.
    func tablesReadResponse(_ request: HTTPRequest, _ settings: ServiceSettings) throws(APIError) -> HTTPResponse {
        switch storage {
        case .local: try localTablesRead(request, settings)
        case .cluster(let cluster): try clusterTablesRead(request, limits: settings.limits, cluster: cluster)
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
