import HTTPServer
import SQLiteEngine
import Testing

@testable import SQLiteService

/// The route table (issue #24): every endpoint declared once with its methods, role and placement, and the 404, 405
/// and `Allow` answers and the token check that come from it.
@Suite struct RouteTableTests {
    /// Every route as the contract gives it: path template, methods, role, where it runs.
    static let expected: [(String, [String], TokenRole?, Route.Placement)] = [
        ("/query", ["POST"], .read, .eventLoop),
        ("/update", ["POST"], .write, .groupCommit),
        ("/batch", ["POST"], .write, .groupCommit),
        ("/transaction", ["POST"], .write, .groupCommit),
        ("/transactions", ["POST"], .read, .handlerThread),
        ("/transactions/{id}", ["POST"], .read, .handlerThread),
        ("/transactions/{id}", ["DELETE"], .read, .handlerThread),
        ("/transactions/{id}/commit", ["POST"], .read, .handlerThread),
        ("/transactions/{id}/rollback", ["POST"], .read, .handlerThread),
        ("/health", ["GET"], nil, .eventLoop),
        ("/schema", ["GET"], .read, .eventLoop),
        ("/schema/{table}", ["GET"], .read, .eventLoop),
        ("/metrics", ["GET"], .admin, .eventLoop),
        ("/backup", ["POST"], .admin, .handlerThread),
        ("/admin/vacuum", ["POST"], .admin, .handlerThread),
        ("/admin/checkpoint", ["POST"], .admin, .handlerThread),
        ("/admin/optimize", ["POST"], .admin, .handlerThread),
        ("/cluster", ["GET"], .read, .handlerThread),
        ("/openapi.json", ["GET"], nil, .eventLoop),
        ("/tables", ["GET"], .read, .eventLoop),
        ("/tables/{table}/rows", ["GET"], .read, .eventLoop),
        ("/tables/{table}/rows", ["POST", "DELETE"], .write, .groupCommit),
        ("/tables/{table}/rows/{key}", ["GET"], .read, .eventLoop),
        ("/tables/{table}/rows/{key}", ["PATCH", "DELETE"], .write, .groupCommit),
        ("/tables/{table}/count", ["GET"], .read, .eventLoop),
        ("/", ["GET"], nil, .eventLoop),
        ("/ui", ["GET"], nil, .eventLoop),
        ("/ui/{asset}", ["GET"], nil, .eventLoop),
    ]

    @Test func everyRoute_hasTheContractsMethodsRoleAndPlacement() {
        let declared = RouteTable.routes.map { ($0.endpoint.label, $0.methods, $0.role, $0.placement) }
        #expect(declared.count == Self.expected.count)
        for (route, expected) in zip(declared, Self.expected) {
            #expect(route.0 == expected.0)
            #expect(route.1 == expected.1, "\(route.0)")
            #expect(route.2 == expected.2, "\(route.0)")
            #expect(route.3 == expected.3, "\(route.0)")
        }
    }

    /// Every endpoint but `other` has a route; no two routes of one path serve the same method; every route names
    /// its response body (what an API description needs), and the writes their request body.
    @Test func table_coversEveryEndpointOnce() {
        for endpoint in ServiceEndpoint.allCases where endpoint != .other {
            let routes = RouteTable.routes.filter { $0.endpoint == endpoint }
            #expect(!routes.isEmpty, "\(endpoint.label)")
            let methods = routes.flatMap(\.methods)
            #expect(Set(methods).count == methods.count, "\(endpoint.label) serves a method twice")
        }
        for route in RouteTable.routes {
            #expect(!route.responseBody.isEmpty)
            if route.methods.contains("POST") || route.methods.contains("PATCH") {
                #expect(route.requestBody != nil, "\(route.endpoint.label)")
            }
        }
    }

    @Test func match_findsTheRoute_refusesOtherMethodsWithAllow() throws {
        guard case .route(let query) = RouteTable.match(.query, method: "POST", onCluster: false) else {
            Issue.record("POST /query has no route")
            return
        }
        #expect(query.endpoint == .query)
        guard case .route(let head) = RouteTable.match(.tablesRow, method: "HEAD", onCluster: false) else {
            Issue.record("HEAD is not served where GET is")
            return
        }
        #expect(head.methods == ["GET"])
        guard case .methodNotAllowed(let allow) = RouteTable.match(.tablesRows, method: "PUT", onCluster: false) else {
            Issue.record("PUT /tables/{table}/rows is not a 405")
            return
        }
        #expect(allow == ["GET", "HEAD", "POST", "DELETE"])
        guard case .methodNotAllowed(let queryAllow) = RouteTable.match(.query, method: "GET", onCluster: false) else {
            Issue.record("GET /query is not a 405")
            return
        }
        #expect(queryAllow == ["POST"])
        guard case .notFound = RouteTable.match(.other, method: "GET", onCluster: false) else {
            Issue.record("an unknown path is not a 404")
            return
        }
        // GET /cluster exists on the cluster storage only.
        guard case .notFound = RouteTable.match(.cluster, method: "GET", onCluster: false) else {
            Issue.record("GET /cluster is served on the local storage")
            return
        }
        guard case .route = RouteTable.match(.cluster, method: "GET", onCluster: true) else {
            Issue.record("GET /cluster is not served on the cluster storage")
            return
        }
    }

    /// A method a path does not serve needs the path's strongest role (so only a client that could use the path
    /// learns its methods); an unknown path needs `read`, or `admin` under `/admin/`, `/backup/` and `/metrics/`.
    @Test func requiredRole_comesFromTheTable() {
        for (label, methods, role, _) in Self.expected {
            let path = label.replacingOccurrences(of: "{table}", with: "t").replacingOccurrences(of: "{key}", with: "1")
                .replacingOccurrences(of: "{asset}", with: "app.js")
            for method in methods {
                #expect(SQLiteService.requiredRole(forPath: path, method: method) == role, "\(method) \(label)")
            }
        }
        #expect(SQLiteService.requiredRole(forPath: "/query", method: "GET") == .read)
        #expect(SQLiteService.requiredRole(forPath: "/update", method: "GET") == .write)
        #expect(SQLiteService.requiredRole(forPath: "/tables/t/rows", method: "PUT") == .write)
        #expect(SQLiteService.requiredRole(forPath: "/health", method: "POST") == nil)
        #expect(SQLiteService.requiredRole(forPath: "/nope") == .read)
        for path in ["/admin/nope", "/backup/x", "/metrics/x"] {
            #expect(SQLiteService.requiredRole(forPath: path, method: "POST") == .admin, "\(path)")
        }
    }

    /// Through the service: 404 for an unknown path, 405 with `Allow` from the table for a known path with another
    /// method, 415 before the body for a JSON route, the Tables API's own 404 and 400 under `/tables/`.
    @Test func service_answersFromTheTable() throws {
        let fixture = try ServiceFixture()
        let unknown = fixture.send("GET", "/nope")
        #expect(unknown.status.code == 404)
        guard case .object(let error)? = try bodyObject(unknown)["error"] else {
            Issue.record("no error object")
            return
        }
        #expect(error["code"] == .string("NOT_FOUND"))
        for (method, path, allow) in [
            ("GET", "/query", "POST"), ("PUT", "/update", "POST"), ("POST", "/health", "GET, HEAD"),
            ("DELETE", "/tables", "GET, HEAD"), ("PUT", "/tables/t/rows", "GET, HEAD, POST, DELETE"),
            ("POST", "/tables/t/rows/1", "GET, HEAD, PATCH, DELETE"), ("GET", "/admin/vacuum", "POST"),
            ("GET", "/backup", "POST"), ("POST", "/schema/t", "GET, HEAD"),
        ] {
            let response = fixture.send(method, path)
            #expect(response.status.code == 405, "\(method) \(path)")
            #expect(response.headers["Allow"] == allow, "\(method) \(path)")
        }
        #expect(fixture.send("GET", "/cluster").status.code == 404)
        let noJSON = fixture.service.handle(
            HTTPRequest(
                method: "POST",
                target: "/query",
                headers: ["Content-Type": "text/plain"],
                body: Array("{}".utf8)
            )
        )
        #expect(noJSON.status.code == 415)
        #expect(fixture.send("GET", "/tables/t/nope").status.code == 404)
        #expect(fixture.send("GET", "/tables/%zz/rows").status.code == 400)
    }

    /// A table name with an encoded `/` is still a Tables path, classified from the raw path.
    @Test func encodedSlashInATableName_isStillATablesRoute() throws {
        let fixture = try ServiceFixture()
        fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE \"a/b\"(id INTEGER PRIMARY KEY, v)"}"#)
        #expect(fixture.send("POST", "/tables/a%2Fb/rows", json: #"{"rows": [{"id": 1, "v": 2}]}"#).status.code == 200)
        let row = fixture.send("GET", "/tables/a%2Fb/rows/1")
        #expect(row.status.code == 200)
        #expect(ServiceEndpoint(HTTPRequest(method: "GET", target: "/tables/a%2Fb/rows/1")) == .tablesRow)
    }
}

/// The server's own tables (`_sqlited_…`, a cluster's cursor key) in a database: listed nowhere, served nowhere, and
/// out of reach of clients' SQL, whoever made them (a backup of a cluster restored on a local server).
@Suite struct ServerTableTests {
    @Test func serverTables_areHiddenFromSchemaAndTables_andDenied() throws {
        let fixture = try ServiceFixture()
        let outside = try Database(path: fixture.path("app.sqlite"))
        try outside.execute(sql: "CREATE TABLE _sqlited_cursor_key(id INTEGER PRIMARY KEY, key BLOB)")
        try outside.execute(sql: "CREATE INDEX _sqlited_cursor_key_i ON _sqlited_cursor_key(key)")
        try outside.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY)")
        try outside.close()
        let schema = String(decoding: try bodyBytes(fixture.send("GET", "/schema")), as: UTF8.self)
        #expect(schema.contains("notes"))
        #expect(!schema.contains("_sqlited_"), "\(schema)")
        let tables = String(decoding: try bodyBytes(fixture.send("GET", "/tables")), as: UTF8.self)
        #expect(tables.contains("notes"))
        #expect(!tables.contains("_sqlited_"), "\(tables)")
        #expect(fixture.send("GET", "/schema/_sqlited_cursor_key").status.code == 404)
        #expect(fixture.send("GET", "/tables/_sqlited_cursor_key/rows").status.code == 404)
        #expect(fixture.send("GET", "/tables/_SQLITED_CURSOR_KEY/count").status.code == 404)
        let query = fixture.send("POST", "/query", json: #"{"sql": "SELECT key FROM _sqlited_cursor_key"}"#)
        #expect(query.status.code == 403)
    }
}
