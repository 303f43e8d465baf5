import Testing

@testable import SQLiteService

/// The endpoint (metrics and request log label) of a path under `/tables`, and the route of a raw path.
@Suite struct TablesRouteTests {
    @Test(arguments: [
        ("/tables", "/tables"),
        ("/tables/t/rows", "/tables/{table}/rows"),
        ("/tables/a b/rows", "/tables/{table}/rows"),
        ("/tables/t/count", "/tables/{table}/count"),
        ("/tables/t/rows/1", "/tables/{table}/rows/{key}"),
        ("/tables/t/rows/1,x", "/tables/{table}/rows/{key}"),
        ("/tables/t/rows/", "/tables/{table}/rows/{key}"),
    ])
    func label_namesTheTemplate(path: String, label: String) {
        #expect(ServiceEndpoint(path: path).isTables)
        #expect(ServiceEndpoint(path: path).label == label)
    }

    @Test(arguments: [
        "/table", "/tablesx", "/tables/", "/tables/t", "/tables/t/other", "/tables/t/count/1", "/tables/t/rows/1/2",
        "/tables/t/cols/1", "/query",
    ])
    func label_isNotATablesLabelForAnyOtherPath(path: String) {
        #expect(!ServiceEndpoint(path: path).isTables)
    }

    @Test func parse_decodesSegmentsAndKeyPartsOneByOne() throws {
        #expect(try TablesRoute.parse(rawPath: "/tables") == .list)
        #expect(try TablesRoute.parse(rawPath: "/tables/a%2Fb/rows") == .rows(table: "a/b"))
        #expect(try TablesRoute.parse(rawPath: "/tables/t/rows/1%2C2,x") == .row(table: "t", key: ["1,2", "x"]))
        #expect(try TablesRoute.parse(rawPath: "/tables/t/count") == .count(table: "t"))
        #expect(try TablesRoute.parse(rawPath: "/query") == nil)
        #expect(throws: APIError.self) { try TablesRoute.parse(rawPath: "/tables/t/other") }
        #expect(throws: APIError.self) { try TablesRoute.parse(rawPath: "/tables/%zz/rows") }
        #expect(try TablesRoute.parse(rawPath: "/tablesx") == nil)
        for path in ["/tables/", "/tables/t", "/tables/t/rows/1/2", "/tables/t/count/1", "/tables//rows/1/"] {
            do {
                _ = try TablesRoute.parse(rawPath: path)
                Issue.record("\(path) parsed")
            } catch {
                #expect(error.status == 404, "\(path)")
            }
        }
        do {
            _ = try TablesRoute.parse(rawPath: "/tables/%zz/other")
            Issue.record("parsed")
        } catch {
            #expect(error.status == 400, "a bad escape in the table name comes first")
        }
        #expect(try TablesRoute.parse(rawPath: "/tables/t/rows/") == .row(table: "t", key: [""]))
    }
}
