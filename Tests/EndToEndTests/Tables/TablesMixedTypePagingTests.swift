import Foundation
import Testing

/// Keyset paging over a column that holds every storage class (issue #23): each page's cursor, whatever the
/// storage class of its last row's sort value, leads to the next page, forwards and backwards, and the pages
/// together are the same `ORDER BY` in SQL.
@Suite struct TablesMixedTypePagingTests {
    /// A table `(id INTEGER PRIMARY KEY, v)` whose `v` has no declared type and holds NULLs, integers, reals (one
    /// equal to an integer), text (one empty) and blobs (one empty), with duplicates of each class.
    static func mixed(_ client: HTTPTestClient) throws -> String {
        let table = uniqueTableName("tm")
        try client.update("CREATE TABLE \(table)(id INTEGER PRIMARY KEY, v)")
        try client.update(
            "INSERT INTO \(table)(id, v) VALUES (1, x'ff01'), (2, 'b'), (3, NULL), (4, 2.5), (5, 7), (6, x''), "
                + "(7, ''), (8, 1.0), (9, 1), (10, x'00'), (11, NULL), (12, 'b'), (13, -3), (14, x'ff01')"
        )
        return table
    }

    func page(_ client: HTTPTestClient, _ path: String) throws -> JSONValue {
        let response = try client.request(method: "GET", path: path)
        try #require(response.status == 200, "\(path) → \(response.bodyText)")
        return try response.json()
    }

    func ids(_ body: JSONValue) -> [Int64] {
        (body["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.int64Value }
    }

    @Test(arguments: ["v", "-v"])
    func everyPageSize_visitsEveryRowOnce_inSQLiteOrder(order: String) throws {
        let client = try SharedSqlited.get().makeClient()
        let table = try Self.mixed(client)
        let direction = order.hasPrefix("-") ? "DESC" : "ASC"
        let expected = try client.rows("SELECT id FROM \(table) ORDER BY v \(direction), id").compactMap {
            $0[0]?.int64Value
        }
        #expect(expected.count == 14)
        for limit in 1...5 {
            let base = "/tables/\(table)/rows?_order=\(order)&_limit=\(limit)"
            // Forwards: every `next`, including those made from a NULL, integer, real, text or blob last row.
            var seen: [Int64] = []
            var cursors: [String] = []
            var path = base
            while true {
                let body = try page(client, path)
                seen += ids(body)
                guard let next = body["next"]?.stringValue else { break }
                cursors.append(next)
                path = base + "&_after=" + next
                try #require(cursors.count <= expected.count, "paging does not end at _limit=\(limit)")
            }
            #expect(seen == expected, "_order=\(order) _limit=\(limit)")
            // Backwards from each cursor: the rows before the cursor's row, in the list's order.
            for (index, cursor) in cursors.enumerated() {
                let cursorRow = (index + 1) * limit - 1
                var back: [Int64] = []
                var before = cursor
                while true {
                    let body = try page(client, base + "&_before=" + before)
                    back = ids(body) + back
                    guard let prev = body["prev"]?.stringValue else { break }
                    before = prev
                    try #require(back.count <= expected.count, "backward paging does not end at _limit=\(limit)")
                }
                #expect(back == Array(expected[..<cursorRow]), "_order=\(order) _limit=\(limit) cursor \(index)")
            }
        }
    }
}
