import Foundation
import HTTPServer
import Testing

@testable import SQLiteService

/// `GET /openapi.json` (issue #30, its first part): the document is made from the route table, so every route is in
/// it and nothing else; every schema it names is defined.
@Suite struct OpenAPIDocumentTests {
    static func document() throws -> [String: Any] {
        let bytes = OpenAPIDocument.make(version: "test")
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Every route's path and method is an operation of the document, and every operation is a route.
    @Test func paths_areExactlyTheRouteTable() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        var routed = Set<String>()
        for route in RouteTable.routes where route.isInAPIDocument {
            for method in route.methods {
                routed.insert("\(method.lowercased()) \(route.endpoint.label)")
            }
        }
        var documented = Set<String>()
        for (path, operations) in paths {
            for method in operations.keys { documented.insert("\(method) \(path)") }
        }
        #expect(documented == routed)
        #expect(documented.contains("post /query"))
        #expect(documented.contains("patch /tables/{table}/rows/{key}"))
    }

    /// Only the console's pages (HTML for a browser, not the API) are left out of the document.
    @Test func onlyTheConsole_isLeftOut() {
        let left = RouteTable.routes.filter { !$0.isInAPIDocument }.map(\.endpoint)
        #expect(left == [.root, .console, .consoleAsset])
        #expect(left.allSatisfy { $0.isConsole })
    }

    /// Every schema declared beside an endpoint is used: named by a route or by another schema's `$ref`.
    @Test func everySchema_isUsed() {
        let text = String(decoding: OpenAPIDocument.make(version: "test"), as: UTF8.self)
        let named = Set(RouteTable.routes.filter(\.isInAPIDocument).flatMap { [$0.responseBody, $0.requestBody] })
        for (name, _) in APISchemas.all {
            let used = named.contains(name) || text.contains(##""#/components/schemas/\##(name)""##)
            #expect(used, "\(name) is declared but nothing uses it")
        }
    }

    /// Each schema parses, every `$ref` names a schema or response the document defines, and the routes' body
    /// names are all defined.
    @Test func schemas_parseAndEveryReferenceResolves() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        #expect(Set(APISchemas.all.map(\.name)).count == APISchemas.all.count, "a schema name twice")
        for route in RouteTable.routes where route.isInAPIDocument {
            #expect(schemas[route.responseBody] != nil, "\(route.endpoint.label): \(route.responseBody)")
            if let body = route.requestBody { #expect(schemas[body] != nil, "\(route.endpoint.label): \(body)") }
        }
        let text = String(decoding: OpenAPIDocument.make(version: "test"), as: UTF8.self)
        let references = try NSRegularExpression(
            pattern: ##""\$ref": ?"#/components/(schemas|responses)/([A-Za-z]+)""##
        )
        let matches = references.matches(in: text, range: NSRange(text.startIndex..., in: text))
        #expect(!matches.isEmpty)
        let responses = try #require(components["responses"] as? [String: Any])
        for match in matches {
            let kind = String(text[try #require(Range(match.range(at: 1), in: text))])
            let name = String(text[try #require(Range(match.range(at: 2), in: text))])
            #expect((kind == "schemas" ? schemas[name] : responses[name]) != nil, "\(kind)/\(name)")
        }
    }

    /// Operations that need a role say so with the bearer scheme, optional (`{}` first) because a server without
    /// tokens needs none; `/health` and `/openapi.json` need no token.
    @Test func security_followsTheRoles() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: [String: Any]]])
        for path in ["/health", "/openapi.json"] {
            #expect((paths[path]?["get"]?["security"] as? [Any])?.isEmpty == true, "\(path)")
        }
        let query = try #require(paths["/query"]?["post"])
        let security = try #require(query["security"] as? [[String: Any]])
        #expect(security.count == 2 && security[0].isEmpty && security[1]["bearerAuth"] != nil)
        #expect((query["responses"] as? [String: Any])?["503"] != nil)
    }

    /// The routes that stream (`POST /query`, `GET /tables/{table}/rows`) list NDJSON and CSV beside JSON, and 406;
    /// the others list JSON only, and no 406.
    @Test func streamingRoutes_listTheirFormatsAnd406() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: [String: Any]]])
        for (path, method) in [("/query", "post"), ("/tables/{table}/rows", "get")] {
            let responses = try #require(paths[path]?[method]?["responses"] as? [String: Any])
            let success = try #require(responses["200"] as? [String: Any])
            let content = try #require(success["content"] as? [String: Any])
            #expect(Set(content.keys) == ["application/json", "application/x-ndjson", "text/csv"], "\(path)")
            #expect(responses["406"] != nil, "\(path)")
        }
        for (path, method) in [("/update", "post"), ("/tables/{table}/rows/{key}", "get"), ("/tables", "get")] {
            let responses = try #require(paths[path]?[method]?["responses"] as? [String: Any])
            let content = (responses["200"] as? [String: Any])?["content"] as? [String: Any]
            #expect(content.map { Set($0.keys) } == ["application/json"], "\(path)")
            #expect(responses["406"] == nil, "\(path)")
        }
    }

    /// Served without a token even when tokens are configured, as JSON.
    @Test func served_withoutAToken() throws {
        let fixture = try ServiceFixture()
        let entry = try TokenStore.Entry(name: "ops", sha256Hex: String(repeating: "a", count: 64), role: .admin)
        fixture.service.setTokens(try TokenStore(entries: [entry]))
        let response = fixture.send("GET", "/openapi.json")
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(try bodyBytes(response) == fixture.service.openAPIDocument)
        #expect(fixture.send("GET", "/schema").status.code == 401)
    }
}
