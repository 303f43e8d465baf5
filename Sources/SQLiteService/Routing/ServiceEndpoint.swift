import Glibc
import HTTPServer

/// The endpoint a request path names, classified once per request from the path's bytes.
///
/// Routing, the metrics label and the request log all ask which endpoint a request went to; comparing the path with
/// each known path as strings, three times over, cost more than a point query's statement (a path of more than 15
/// bytes, such as every Tables path with a key, is compared through the general string comparison each time). The
/// Tables paths carry a table name and a key, which are values: their label is the route's template, never the path.
enum ServiceEndpoint: Int, CaseIterable, Sendable {
    case query
    case update
    case batch
    case transaction
    case health
    case schema
    case metrics
    case backup
    case adminVacuum
    case adminCheckpoint
    case adminOptimize
    case tables
    case tablesRows
    case tablesRow
    case tablesCount
    /// `/schema/{table}`.
    case schemaTable
    /// `GET /cluster` (the cluster backend only).
    case cluster
    /// `GET /openapi.json`.
    case openAPI
    /// `GET /`: a redirect to the console (issue #31).
    case root
    /// `GET /ui`: the console's page.
    case console
    /// `GET /ui/{asset}`: the console's style sheet and scripts.
    case consoleAsset
    /// `POST /transactions`: opens an interactive transaction.
    case transactions
    /// `POST`, `DELETE /transactions/{id}`: a request of the transaction, or its rollback.
    case transactionsItem
    /// `POST /transactions/{id}/commit`.
    case transactionsCommit
    /// `POST /transactions/{id}/rollback`.
    case transactionsRollback
    /// Any other path (a 404, or `/admin/…` and `/backup/…` paths that no operation serves).
    case other

    /// The endpoint of a request's (percent-decoded) path.
    init(path: String) {
        var path = path
        self = path.withUTF8 { Self.classify($0) }
    }

    /// The endpoint of a request. A Tables path whose table name or key holds an encoded `/` (`%2F`) has more
    /// segments once decoded: it is classified again from the raw path, segment by segment (``TablesRoute``).
    init(_ request: HTTPRequest) {
        self.init(path: request.path)
        guard self == .other, request.path.hasPrefix("/tables/"),
            let route = try? TablesRoute.parse(rawPath: request.rawPath)
        else { return }
        switch route {
        case .list: self = .tables
        case .rows: self = .tablesRows
        case .row: self = .tablesRow
        case .count: self = .tablesCount
        }
    }

    /// The `endpoint` label of the metrics, also the request log's path for a Tables request.
    var label: String {
        switch self {
        case .query: "/query"
        case .update: "/update"
        case .batch: "/batch"
        case .transaction: "/transaction"
        case .health: "/health"
        case .schema: "/schema"
        case .metrics: "/metrics"
        case .backup: "/backup"
        case .adminVacuum: "/admin/vacuum"
        case .adminCheckpoint: "/admin/checkpoint"
        case .adminOptimize: "/admin/optimize"
        case .tables: "/tables"
        case .tablesRows: "/tables/{table}/rows"
        case .tablesRow: "/tables/{table}/rows/{key}"
        case .tablesCount: "/tables/{table}/count"
        case .schemaTable: "/schema/{table}"
        case .cluster: "/cluster"
        case .openAPI: "/openapi.json"
        case .root: "/"
        case .console: "/ui"
        case .consoleAsset: "/ui/{asset}"
        case .transactions: "/transactions"
        case .transactionsItem: "/transactions/{id}"
        case .transactionsCommit: "/transactions/{id}/commit"
        case .transactionsRollback: "/transactions/{id}/rollback"
        case .other: "other"
        }
    }

    /// Whether the path is the console's (served only while `console.enabled` is on).
    var isConsole: Bool {
        switch self {
        case .root, .console, .consoleAsset: true
        default: false
        }
    }

    /// Whether the path is one of the Tables API's (its table name and key must not reach a label or the log).
    var isTables: Bool {
        switch self {
        case .tables, .tablesRows, .tablesRow, .tablesCount: true
        default: false
        }
    }

    /// Whether the path's own text stays out of the request log (a Tables name and key, a transaction's ID: the
    /// log shows the route's template instead).
    var hidesPath: Bool {
        switch self {
        case .tables, .tablesRows, .tablesRow, .tablesCount, .transactionsItem, .transactionsCommit,
            .transactionsRollback:
            true
        default: false
        }
    }

    private static func classify(_ path: UnsafeBufferPointer<UInt8>) -> ServiceEndpoint {
        switch path.count {
        case 1 where matches(path, "/"): return .root
        case 3 where matches(path, "/ui"): return .console
        case 6 where matches(path, "/query"): return .query
        case 6 where matches(path, "/batch"): return .batch
        case 7 where matches(path, "/update"): return .update
        case 7 where matches(path, "/health"): return .health
        case 7 where matches(path, "/schema"): return .schema
        case 7 where matches(path, "/backup"): return .backup
        case 7 where matches(path, "/tables"): return .tables
        case 8 where matches(path, "/metrics"): return .metrics
        case 8 where matches(path, "/cluster"): return .cluster
        case 12 where matches(path, "/transaction"): return .transaction
        case 13 where matches(path, "/admin/vacuum"): return .adminVacuum
        case 13 where matches(path, "/openapi.json"): return .openAPI
        case 13 where matches(path, "/transactions"): return .transactions
        case 15 where matches(path, "/admin/optimize"): return .adminOptimize
        case 17 where matches(path, "/admin/checkpoint"): return .adminCheckpoint
        default: break
        }
        if matches(path, "/tables/") {
            return tablesEndpoint(path[8...])
        }
        if matches(path, "/ui/") { return .consoleAsset }
        if matches(path, "/transactions/") { return transactionsEndpoint(path[14...]) }
        return matches(path, "/schema/") ? .schemaTable : .other
    }

    /// Whether `path` starts with `literal` (one `memcmp`: the generic `starts(with:)` walks two iterators).
    private static func matches(_ path: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard path.count >= count, let base = path.baseAddress else { return count == 0 }
        return memcmp(base, literal.utf8Start, count) == 0
    }

    /// The endpoint of what follows `/transactions/`: `{id}`, `{id}/commit` or `{id}/rollback`.
    private static func transactionsEndpoint(_ rest: Slice<UnsafeBufferPointer<UInt8>>) -> ServiceEndpoint {
        let slash = UInt8(ascii: "/")
        guard let first = rest.firstIndex(of: slash) else { return rest.isEmpty ? .other : .transactionsItem }
        guard first > rest.startIndex else { return .other }
        let action = rest[(first + 1)...]
        if action.elementsEqual("commit".utf8) { return .transactionsCommit }
        return action.elementsEqual("rollback".utf8) ? .transactionsRollback : .other
    }

    /// The endpoint of what follows `/tables/`: `{table}/rows`, `{table}/count` or `{table}/rows/{key}`.
    private static func tablesEndpoint(_ rest: Slice<UnsafeBufferPointer<UInt8>>) -> ServiceEndpoint {
        let slash = UInt8(ascii: "/")
        guard let first = rest.firstIndex(of: slash) else { return .other }
        let afterTable = rest[(first + 1)...]
        guard let second = afterTable.firstIndex(of: slash) else {
            if afterTable.elementsEqual("rows".utf8) { return .tablesRows }
            return afterTable.elementsEqual("count".utf8) ? .tablesCount : .other
        }
        guard afterTable[..<second].elementsEqual("rows".utf8),
            !afterTable[(second + 1)...].contains(slash)
        else { return .other }
        return .tablesRow
    }
}
