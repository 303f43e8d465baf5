import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /admin/vacuum`, `/admin/checkpoint` and `/admin/optimize` (role `admin`): maintenance on the writer,
    /// while readers go on reading their snapshots.
    ///
    /// - `vacuum`: body empty or `{}` → `{"size_before": n, "size_after": n, "checkpoint": {...}|null}`.
    /// - `checkpoint`: body empty, `{}` or `{"mode": "passive"|"full"|"restart"|"truncate"}` (default passive) →
    ///   `{"mode": ..., "wal_frames": n, "checkpointed_frames": n}`.
    /// - `optimize`: body empty, `{}` or `{"analyze": true|false}` → `{"analyzed": bool}`.
    ///
    /// A lock that cannot be had within the writer's busy timeout is the usual 503 `SQLITE_BUSY` with `Retry-After`.
    func maintenanceResponse(_ request: HTTPRequest, metrics: ServiceMetrics?) throws(APIError) -> HTTPResponse? {
        let operation: Substring = request.path.dropFirst("/admin/".count)
        guard ["vacuum", "checkpoint", "optimize"].contains(operation) else { return nil }
        try Self.requirePostWithJSON(request)
        let allowedKeys: Set<String> =
            switch operation {
            case "checkpoint": ["mode"]
            case "optimize": ["analyze"]
            default: []
            }
        let options = try Self.maintenanceOptions(request.body, allowed: allowedKeys)
        var writer = JSONWriter()
        writer.beginObject()
        switch operation {
        case "vacuum":
            let result = try onMaintenanceWriter { db in try DatabaseMaintenance.vacuum(db) }
            metrics?.maintenance.recordVacuum()
            writer.key("size_before")
            writer.writeInt64(result.sizeBefore)
            writer.key("size_after")
            writer.writeInt64(result.sizeAfter)
            writer.key("checkpoint")
            if let checkpoint = result.checkpoint {
                writer.beginObject()
                Self.writeCheckpointMembers(checkpoint, into: &writer)
                writer.endObject()
            } else {
                writer.writeNull()
            }
        case "checkpoint":
            let mode = try Self.checkpointMode(options["mode"])
            do {
                let result = try onMaintenanceWriter { db in try DatabaseMaintenance.checkpoint(db, mode: mode) }
                metrics?.maintenance.recordCheckpoint(result, trigger: "request")
                Self.writeCheckpointMembers(result, into: &writer)
            } catch {
                if error.status == 503 { metrics?.maintenance.recordCheckpointBusy(trigger: "request") }
                throw error
            }
        default:
            let analyze: Bool
            switch options["analyze"] {
            case nil, .bool(false)?: analyze = false
            case .bool(true)?: analyze = true
            case let value?: throw .invalidRequest("analyze must be a boolean, not \(value.typeName)")
            }
            try onMaintenanceWriter { db in try DatabaseMaintenance.optimize(db, analyze: analyze) }
            metrics?.maintenance.recordOptimize(trigger: "request")
            writer.key("analyzed")
            writer.writeBool(analyze)
        }
        writer.endObject()
        logger.info("maintenance done", metadata: ["operation": "\(operation)"])
        return Self.jsonResponse(writer.bytes)
    }

    /// Runs `body` on the writer in autocommit mode, with no request's transaction around it.
    private func onMaintenanceWriter<T>(_ body: (Database) throws -> T) throws(APIError) -> T {
        do {
            return try pool.write { db in
                do {
                    return try body(db)
                } catch {
                    throw APIError(error, db: db)
                }
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(error, db: nil)
        }
    }

    /// The members of an optional JSON object body, each key checked against `allowed`.
    private static func maintenanceOptions(_ body: [UInt8], allowed: Set<String>) throws(APIError) -> JSONObject {
        guard let object = try optionalJSONObjectBody(body) else { return JSONObject() }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw .invalidRequest("unknown key \(RequestDecoder.quotedForMessage(unknown))")
        }
        return object
    }

    private static func checkpointMode(_ value: JSONValue?) throws(APIError) -> CheckpointMode {
        switch value {
        case nil: return .passive
        case .string("passive")?: return .passive
        case .string("full")?: return .full
        case .string("restart")?: return .restart
        case .string("truncate")?: return .truncate
        default: throw .invalidRequest(#"mode must be "passive", "full", "restart" or "truncate""#)
        }
    }

    /// `"mode": ..., "wal_frames": n, "checkpointed_frames": n`, inside an object `writer` has begun.
    private static func writeCheckpointMembers(
        _ result: DatabaseMaintenance.CheckpointResult,
        into writer: inout JSONWriter
    ) {
        writer.key("mode")
        writer.writeString("\(result.mode)")
        writer.key("wal_frames")
        writer.writeInt64(Int64(result.walFrames))
        writer.key("checkpointed_frames")
        writer.writeInt64(Int64(result.checkpointedFrames))
    }
}
