import Foundation
import HTTPServer
import Logging
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// A fresh directory with a service over a pool prepared as the server prepares it; everything is removed when the
/// value is released.
final class ServiceFixture {
    let directory: URL
    let pool: DatabasePool
    let service: SQLiteService
    let logs: LogCapture

    /// - Parameters:
    ///   - options: The service's options; `metrics` is filled in when `withMetrics` is true.
    ///   - readerWaitTimeout: How long a blocking read waits for a free reader.
    ///   - busyTimeout: The connections' busy timeout (short to provoke `SQLITE_BUSY` without waiting).
    init(
        options: ServiceOptions = ServiceOptions(),
        withMetrics: Bool = true,
        readers: Int = 2,
        readerWaitTimeout: Duration = .seconds(5),
        busyTimeout: Duration = .seconds(5)
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlited-service-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let limits = ServiceLimits()
        var configuration = Configuration()
        configuration.busyTimeout = busyTimeout
        configuration.prepareDatabase = { db in
            SQLiteService.prepareConnection(db, role: db.isReadOnly ? .reader : .writer, limits: limits)
        }
        let path = directory.appendingPathComponent("app.sqlite").path
        pool = try DatabasePool(
            path: path,
            configuration: .init(
                maximumReaderCount: readers,
                readerWaitTimeout: readerWaitTimeout,
                configuration: configuration
            )
        )
        var options = options
        if withMetrics {
            options.metrics = ServiceMetrics(databasePath: path)
        }
        logs = LogCapture()
        let capture = logs
        var logger = Logger(label: "test") { _ in capture.handler() }
        logger.logLevel = .trace
        service = SQLiteService(pool: pool, limits: limits, version: "test", logger: logger, options: options)
        service.isAvailable = true
    }

    deinit {
        try? pool.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The path of a file inside the directory (not created).
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Sends a request straight to the service's handler.
    @discardableResult
    func send(_ method: String, _ target: String, json: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        if json != nil {
            headers.add(name: "Content-Type", value: "application/json")
        }
        return service.handle(
            HTTPRequest(method: method, target: target, headers: headers, body: Array((json ?? "").utf8))
        )
    }

    /// The metrics text of `GET /metrics`.
    func metricsText() throws -> String {
        let response = send("GET", "/metrics")
        try #require(response.status.code == 200)
        return String(decoding: try bodyBytes(response), as: UTF8.self)
    }
}

/// The bytes of a response whose body is known up front.
func bodyBytes(_ response: HTTPResponse) throws -> [UInt8] {
    guard case .bytes(let bytes) = response.body else {
        throw FixtureError("the response body is streamed")
    }
    return bytes
}

/// The JSON object of a response body.
func bodyObject(_ response: HTTPResponse) throws -> JSONObject {
    guard case .object(let object) = try JSONParser().parse(try bodyBytes(response)) else {
        throw FixtureError("the body is not a JSON object")
    }
    return object
}

/// The value of the sample `name{labels}` (or `name` without labels) in a Prometheus text exposition.
func sample(_ name: String, in text: String) -> Double? {
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        let parts = line.split(separator: " ")
        if parts.count == 2, parts[0] == name {
            return Double(parts[1])
        }
    }
    return nil
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects log records in memory.
final class LogCapture: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let storage = Mutex<[Record]>([])

    var records: [Record] { storage.withLock { $0 } }

    func handler() -> Handler { Handler(capture: self) }

    func append(_ record: Record) { storage.withLock { $0.append(record) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var flattened: [String: String] = [:]
            for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
                flattened[key] = "\(value)"
            }
            capture.append(Record(level: event.level, message: "\(event.message)", metadata: flattened))
        }
    }
}
