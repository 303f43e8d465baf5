import Foundation
import HTTPServer
import Logging
import SQLiteEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteService {
    /// `POST /backup`: a consistent copy of the database, made with SQLite's online backup API on a reader
    /// connection (so reads and writes go on meanwhile), written into the backup directory under a timestamped
    /// name.
    ///
    /// The body must be empty or `{}`. Answers `{"file": NAME, "size": BYTES}`: the name within the backup
    /// directory (never the full path) and the file's size. Backups run one at a time; a second request waits for
    /// the first. Without a backup directory the endpoint does not exist (404 `NOT_FOUND`).
    func backupResponse(_ request: HTTPRequest, options: ServiceOptions) throws(APIError) -> HTTPResponse {
        guard let directory = options.backupDirectory else {
            throw .notFound("no endpoint at POST /backup: no backup directory is configured")
        }
        try JSONContentType.check(request.headers["content-type"])
        try Self.checkBackupBody(request.body)
        let started = ContinuousClock.now
        let (name, size) = try backupSerializer.withLock { _ throws(APIError) in
            let (name, path) = try newBackupFile(in: directory, databasePath: store.backupBaseName)
            do throws(APIError) {
                try store.backup(to: path, metrics: options.metrics)
            } catch {
                logger.error("backup failed", metadata: ["file": "\(name)", "code": "\(error.code)"])
                throw error
            }
            return (name, Self.fileSize(path))
        }
        logger.info(
            "backup written",
            metadata: [
                "file": "\(name)", "size": "\(size)",
                "duration_ms": "\((ContinuousClock.now - started) / .milliseconds(1))",
            ]
        )
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("file")
        writer.writeString(name)
        writer.key("size")
        writer.writeInt64(size)
        writer.endObject()
        return Self.jsonResponse(writer.bytes)
    }

    /// Creates `directory` when missing and picks a backup name there that no file has: `(name, full path)`.
    func newBackupFile(in directory: String, databasePath: String) throws(APIError) -> (name: String, path: String) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            logger.error("cannot create the backup directory", metadata: ["directory": "\(directory)"])
            throw .internal("the backup directory cannot be created")
        }
        var name = Self.backupFileName(databasePath: databasePath, date: Date(), attempt: 0)
        var attempt = 0
        // Two backups within one millisecond, or a clock set back: never reuse a name.
        while FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name)) {
            attempt += 1
            name = Self.backupFileName(databasePath: databasePath, date: Date(), attempt: attempt)
        }
        return (name, (directory as NSString).appendingPathComponent(name))
    }

    /// The size of the file at `path`, 0 when it cannot be read.
    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// `<database name>-<UTC time to the millisecond>[-attempt]<database extension, or .db>`, such as
    /// `app-20260131T235959.123Z.db`: names sort by time.
    static func backupFileName(databasePath: String, date: Date, attempt: Int) -> String {
        let file = (databasePath as NSString).lastPathComponent
        let fileExtension = (file as NSString).pathExtension
        var stem = (file as NSString).deletingPathExtension
        if stem.isEmpty { stem = "database" }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let timestamp =
            padded(parts.tm_year + 1900, 4) + padded(parts.tm_mon + 1, 2) + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + padded(parts.tm_min, 2) + padded(parts.tm_sec, 2) + "."
            + padded(Int32(milliseconds % 1000), 3) + "Z"
        let suffix = attempt > 0 ? "-\(attempt)" : ""
        return "\(stem)-\(timestamp)\(suffix).\(fileExtension.isEmpty ? "db" : fileExtension)"
    }

    /// Accepts an empty body (or only white space) or an empty JSON object; the endpoint takes no options.
    private static func checkBackupBody(_ body: [UInt8]) throws(APIError) {
        guard let object = try optionalJSONObjectBody(body) else { return }
        if let key = object.keys.first {
            throw .invalidRequest("unknown key \(RequestDecoder.quotedForMessage(key)) (POST /backup takes no options)")
        }
    }
}

extension APISchemas {
    /// The JSON Schema of `POST /backup`'s answer (OpenAPI, ``APISchemas``).
    static let backup: [(name: String, json: String)] = [
        (
            "Backup",
            ##"{"type": "object", "required": ["file", "size"], "properties": {"file": {"type": "string"}, "size": {"type": "integer"}}}"##
        )
    ]
}
