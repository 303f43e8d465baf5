import HTTPServer

/// Every endpoint of the API, declared once: the one place that says which paths and methods exist, what role they
/// need, where they run and which handler answers them. The dispatch (``SQLiteService/handle(_:)``,
/// ``SQLiteService/handleOnEventLoop(_:)``, ``SQLiteService/handleDeferred(_:respond:)``), the token check, the 404
/// and 405 answers, the metrics label and the request log all read it; nothing else matches paths.
///
/// The order is the order of the `Allow` field for a path served by several routes.
enum RouteTable {
    static let routes: [Route] = [
        Route(
            .query,
            ["POST"],
            role: .read,
            requiresJSON: true,
            placement: .eventLoop,
            requestBody: "QueryRequest",
            responseBody: "Result",
            streamsResults: true,
            handle: { service, request, settings throws(APIError) in try service.queryResponse(request, settings) },
            onEventLoop: { service, request, settings throws(APIError) in
                try service.queryOnEventLoop(request, settings)
            }
        ),
        write(.update, requiresJSON: true, requestBody: "UpdateRequest", responseBody: "Result") {
            service,
            request,
            limits throws(APIError) in try service.update(request.body, limits: limits)
        },
        write(.batch, requiresJSON: true, requestBody: "BatchRequest", responseBody: "BatchResults") {
            service,
            request,
            limits throws(APIError) in try service.batch(request.body, limits: limits)
        },
        write(.transaction, requiresJSON: true, requestBody: "TransactionRequest", responseBody: "TransactionResults") {
            service,
            request,
            limits throws(APIError) in try service.transaction(request.body, limits: limits)
        },
        Route(
            .transactions,
            ["POST"],
            role: .read,
            requiresJSON: true,
            requestBody: "TransactionOpenRequest",
            responseBody: "TransactionOpened",
            successStatus: 201,
            handle: { service, request, settings throws(APIError) in
                try service.openTransactionResponse(request, settings)
            }
        ),
        Route(
            .transactionsItem,
            ["POST"],
            role: .read,
            requiresJSON: true,
            requestBody: "TransactionStepRequest",
            responseBody: "TransactionStepResult",
            handle: { service, request, settings throws(APIError) in
                try service.transactionStepResponse(request, settings)
            }
        ),
        Route(
            .transactionsItem,
            ["DELETE"],
            role: .read,
            responseBody: "TransactionRolledBack",
            handle: { service, request, settings throws(APIError) in
                try service.rollbackTransactionResponse(request, settings)
            }
        ),
        Route(
            .transactionsCommit,
            ["POST"],
            role: .read,
            requiresJSON: true,
            requestBody: "EmptyObject",
            responseBody: "TransactionCommitted",
            handle: { service, request, settings throws(APIError) in
                try service.commitTransactionResponse(request, settings)
            }
        ),
        Route(
            .transactionsRollback,
            ["POST"],
            role: .read,
            requiresJSON: true,
            requestBody: "EmptyObject",
            responseBody: "TransactionRolledBack",
            handle: { service, request, settings throws(APIError) in
                try service.rollbackTransactionResponse(request, settings)
            }
        ),
        Route(
            .health,
            ["GET"],
            role: nil,
            placement: .eventLoop,
            responseBody: "Health",
            handle: { service, _, settings in service.healthResponse(settings) },
            onEventLoop: { service, _, settings in service.healthResponse(settings) }
        ),
        Route(
            .schema,
            ["GET"],
            role: .read,
            placement: .eventLoop,
            responseBody: "Schema",
            handle: { service, _, settings throws(APIError) in try service.schemaResponse(settings) },
            onEventLoop: { service, _, settings throws(APIError) in
                try service.withEventLoopBudget(metrics: settings.options.metrics) { db throws(APIError) in
                    try SQLiteService.schemaBody(db)
                }
            }
        ),
        Route(
            .schemaTable,
            ["GET"],
            role: .read,
            placement: .eventLoop,
            responseBody: "TableSchema",
            handle: { service, request, settings throws(APIError) in
                try service.tableSchemaResponse(request.schemaTableName, settings)
            },
            onEventLoop: { service, request, settings throws(APIError) in
                let name = request.schemaTableName
                return try service.withEventLoopBudget(metrics: settings.options.metrics) { db throws(APIError) in
                    try SQLiteService.tableSchemaBody(name, db)
                }
            }
        ),
        Route(
            .metrics,
            ["GET"],
            role: .admin,
            placement: .eventLoop,
            responseBody: "PrometheusText",
            handle: { service, _, settings throws(APIError) in try service.metricsResponse(settings.options.metrics) },
            onEventLoop: { service, _, settings throws(APIError) in
                // Without metrics the answer is a 404 made here; with them it asks the HTTP server for its
                // connection count and stats files: a handler thread.
                settings.options.metrics == nil ? try service.metricsResponse(nil) : nil
            }
        ),
        Route(
            .backup,
            ["POST"],
            role: .admin,
            requestBody: "EmptyObject",
            responseBody: "Backup",
            handle: { service, request, settings throws(APIError) in
                try service.backupResponse(request, options: settings.options)
            }
        ),
        Route(
            .adminVacuum,
            ["POST"],
            role: .admin,
            requiresJSON: true,
            requestBody: "EmptyObject",
            responseBody: "Vacuum",
            handle: { service, request, settings throws(APIError) in
                try service.maintenanceResponse(.vacuum, request, settings)
            }
        ),
        Route(
            .adminCheckpoint,
            ["POST"],
            role: .admin,
            requiresJSON: true,
            requestBody: "CheckpointRequest",
            responseBody: "Checkpoint",
            handle: { service, request, settings throws(APIError) in
                try service.maintenanceResponse(.checkpoint, request, settings)
            }
        ),
        Route(
            .adminOptimize,
            ["POST"],
            role: .admin,
            requiresJSON: true,
            requestBody: "OptimizeRequest",
            responseBody: "Optimize",
            handle: { service, request, settings throws(APIError) in
                try service.maintenanceResponse(.optimize, request, settings)
            }
        ),
        Route(
            .cluster,
            ["GET"],
            role: .read,
            availability: .clusterOnly,
            responseBody: "ClusterStatus",
            handle: { service, _, _ throws(APIError) in try service.clusterStatusResponse() }
        ),
        Route(
            .openAPI,
            ["GET"],
            role: nil,
            placement: .eventLoop,
            responseBody: "OpenAPIDocument",
            handle: { service, _, _ in service.openAPIResponse() },
            onEventLoop: { service, _, _ in service.openAPIResponse() }
        ),
        tablesRead(.tables, responseBody: "TableList"),
        tablesRead(.tablesRows, responseBody: "RowPage", streamsResults: true),
        write(.tablesRows, ["POST", "DELETE"], requestBody: "RowsInsert", responseBody: "Changes") {
            service,
            request,
            limits throws(APIError) in try service.tablesWrite(request, limits: limits)
        },
        tablesRead(.tablesRow, responseBody: "Row"),
        write(.tablesRow, ["PATCH", "DELETE"], requestBody: "RowPatch", responseBody: "RowWriteResult") {
            service,
            request,
            limits throws(APIError) in try service.tablesWrite(request, limits: limits)
        },
        tablesRead(.tablesCount, responseBody: "Count"),
        console(.root) { service, request in service.consoleRedirect(request) },
        console(.console) { service, request in service.consoleAssetResponse(request) },
        console(.consoleAsset) { service, request in service.consoleAssetResponse(request) },
    ]

    /// A page of the console (issue #31): open to every client (it holds no data; what it shows comes from the API
    /// with the client's token), answered on the event loop from memory, and left out of the API's document.
    /// ``SQLiteService/resolve(_:_:settings:tokenName:match:)`` answers 404 for these paths while the console is off.
    private static func console(
        _ endpoint: ServiceEndpoint,
        _ answer: @escaping @Sendable (SQLiteService, HTTPRequest) -> HTTPResponse
    ) -> Route {
        Route(
            endpoint,
            ["GET"],
            role: nil,
            placement: .eventLoop,
            responseBody: "ConsolePage",
            isInAPIDocument: false,
            handle: { service, request, _ in answer(service, request) },
            onEventLoop: { service, request, _ in answer(service, request) }
        )
    }

    /// A Tables read: on the event loop when a reader is free at once and the work fits the budget.
    private static func tablesRead(
        _ endpoint: ServiceEndpoint,
        responseBody: String,
        streamsResults: Bool = false
    ) -> Route {
        Route(
            endpoint,
            ["GET"],
            role: .read,
            placement: .eventLoop,
            responseBody: responseBody,
            streamsResults: streamsResults,
            handle: { service, request, settings throws(APIError) in try service.tablesReadResponse(request, settings)
            },
            onEventLoop: { service, request, settings throws(APIError) in
                try service.tablesReadOnEventLoop(request, settings: settings)
            }
        )
    }

    /// A write: in a group commit on the local storage (prepared on the event loop when it can be), else on a
    /// handler thread through ``SQLiteService/performWrite(_:_:)``; `make` decodes and checks the request, and
    /// ``SQLiteService/storageWrite(_:_:settings:tokenName:)`` adds its `Idempotency-Key` handling.
    private static func write(
        _ endpoint: ServiceEndpoint,
        _ methods: [String] = ["POST"],
        requiresJSON: Bool = false,
        requestBody: String,
        responseBody: String,
        _ make: @escaping @Sendable (SQLiteService, HTTPRequest, ServiceLimits) throws(APIError) -> StorageWrite
    ) -> Route {
        Route(
            endpoint,
            methods,
            role: .write,
            requiresJSON: requiresJSON,
            placement: .groupCommit,
            requestBody: requestBody,
            responseBody: responseBody,
            makeWrite: make
        )
    }

    /// The routes of each endpoint, indexed by its raw value (one array lookup per request).
    private static let byEndpoint: [[Route]] = ServiceEndpoint.allCases.map { endpoint in
        routes.filter { $0.endpoint == endpoint }
    }

    /// What the table says of a request.
    enum Match {
        case route(Route)
        /// The path exists, not with this method: 405 with `Allow`.
        case methodNotAllowed(allow: [String])
        /// No route serves the path on this storage: 404.
        case notFound
    }

    /// The route serving `method` at `endpoint` on the cluster storage (`onCluster`) or the local one.
    static func match(_ endpoint: ServiceEndpoint, method: String, onCluster: Bool) -> Match {
        let candidates = byEndpoint[endpoint.rawValue]
        var available = false
        for route in candidates where route.availability == .everywhere || onCluster {
            if route.serves(method) { return .route(route) }
            available = true
        }
        guard available else { return .notFound }
        return .methodNotAllowed(
            allow: candidates.filter { $0.availability == .everywhere || onCluster }.flatMap(\.allowed)
        )
    }

    /// Whether a route of `endpoint` is a group-commit write.
    static func hasGroupCommitRoute(_ endpoint: ServiceEndpoint) -> Bool {
        byEndpoint[endpoint.rawValue].contains { $0.placement == .groupCommit }
    }

    /// The role a request needs before it is routed (nil: none).
    ///
    /// A method the path does not serve needs the strongest role of the path's routes, so that the 405 (and which
    /// methods exist) is told only to a client that could use one of them. A path no route serves needs `read`, and
    /// `admin` under `/admin/`, `/backup/` and `/metrics/`, so that only an authenticated client learns which paths
    /// exist (404).
    static func requiredRole(_ endpoint: ServiceEndpoint, method: String, path: String) -> TokenRole? {
        let candidates = byEndpoint[endpoint.rawValue]
        guard !candidates.isEmpty else {
            let adminPrefixes = ["/admin/", "/backup/", "/metrics/"]
            return adminPrefixes.contains { path.hasPrefix($0) } ? .admin : .read
        }
        for route in candidates where route.serves(method) { return route.role }
        return candidates.compactMap(\.role).max()
    }
}

extension HTTPRequest {
    /// The `{table}` of `/schema/{table}`.
    var schemaTableName: String {
        String(path.dropFirst("/schema/".count))
    }
}
