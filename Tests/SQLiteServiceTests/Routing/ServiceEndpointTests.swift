import Testing

@testable import SQLiteService

/// The classification of request paths that routing, the metrics label and the request log share.
@Suite struct ServiceEndpointTests {
    @Test(
        arguments: [
            ("/query", .query), ("/update", .update), ("/batch", .batch), ("/transaction", .transaction),
            ("/health", .health), ("/schema", .schema), ("/metrics", .metrics), ("/backup", .backup),
            ("/admin/vacuum", .adminVacuum), ("/admin/checkpoint", .adminCheckpoint),
            ("/admin/optimize", .adminOptimize),
            ("/tables", .tables), ("/tables/t/rows", .tablesRows), ("/tables/t/count", .tablesCount),
            ("/tables/t/rows/1", .tablesRow), ("/tables/a b/rows/1,x", .tablesRow), ("/tables//rows/", .tablesRow),
            ("/schema/t", .schemaTable), ("/schema/", .schemaTable), ("/schema/a/b", .schemaTable),
            ("/openapi.json", .openAPI), ("/", .root), ("/ui", .console), ("/ui/app.js", .consoleAsset),
            ("/ui/", .consoleAsset), ("/transactions", .transactions), ("/transactions/ab12", .transactionsItem),
            ("/transactions/ab12/commit", .transactionsCommit), ("/transactions/ab12/rollback", .transactionsRollback),
        ] as [(String, ServiceEndpoint)]
    )
    func knownPaths_areClassified(path: String, endpoint: ServiceEndpoint) {
        #expect(ServiceEndpoint(path: path) == endpoint)
    }

    /// Near misses are `other`: longer, shorter, another case, a trailing slash, an unknown operation.
    @Test(arguments: [
        "", "/queryx", "/quer", "/Query", "/query/", "/update/1", "/healthz", "/metrics/", "/backup/x",
        "/admin/", "/admin/vacuumx", "/admin/VACUUM", "/tablesx", "/tables/", "/tables/t", "/tables/t/other",
        "/tables/t/count/1", "/tables/t/rows/1/2", "/tables/t/cols/1", "/schemas", "/transactionsx",
        "/transactions/", "/transactions//commit", "/transactions/a/commitx", "/transactions/a/b/commit",
        "/u", "/uix", "/UI", "//",
    ])
    func otherPaths_areOther(path: String) {
        #expect(ServiceEndpoint(path: path) == .other)
    }

    /// One label per endpoint, so that no two endpoints share a series; none holds a table name or a key.
    @Test func labels_areDistinctTemplates() {
        let labels = ServiceEndpoint.allCases.map(\.label)
        #expect(Set(labels).count == labels.count)
        #expect(ServiceEndpoint.allCases.filter(\.isTables) == [.tables, .tablesRows, .tablesRow, .tablesCount])
        #expect(ServiceEndpoint(path: "/tables/secret_table/rows/42").label == "/tables/{table}/rows/{key}")
    }
}
