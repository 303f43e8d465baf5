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
    func localMaintenance(_ request: MaintenanceRequest, metrics: ServiceMetrics?) throws(APIError) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        switch request {
        case .vacuum:
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
        case .checkpoint(let mode):
            do {
                let result = try onMaintenanceWriter { db in try DatabaseMaintenance.checkpoint(db, mode: mode) }
                metrics?.maintenance.recordCheckpoint(result, trigger: "request")
                Self.writeCheckpointMembers(result, into: &writer)
            } catch {
                if error.status == 503 { metrics?.maintenance.recordCheckpointBusy(trigger: "request") }
                throw error
            }
        case .optimize(let analyze):
            try onMaintenanceWriter { db in try DatabaseMaintenance.optimize(db, analyze: analyze) }
            metrics?.maintenance.recordOptimize(trigger: "request")
            writer.key("analyzed")
            writer.writeBool(analyze)
        }
        writer.endObject()
        logger.info("maintenance done", metadata: ["operation": "\(request.operation.rawValue)"])
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

    /// The request of `POST /admin/{operation}`: its optional body checked (an unknown key, a bad `mode` or
    /// `analyze`: 400 `INVALID_REQUEST`), the same on both storages.
    static func maintenanceRequest(
        _ operation: MaintenanceOperation,
        body: [UInt8]
    ) throws(APIError) -> MaintenanceRequest {
        switch operation {
        case .vacuum:
            _ = try maintenanceOptions(body, allowed: [])
            return .vacuum
        case .checkpoint:
            return .checkpoint(try checkpointMode(try maintenanceOptions(body, allowed: ["mode"])["mode"]))
        case .optimize:
            switch try maintenanceOptions(body, allowed: ["analyze"])["analyze"] {
            case nil, .bool(false)?: return .optimize(analyze: false)
            case .bool(true)?: return .optimize(analyze: true)
            case let value?: throw .invalidRequest("analyze must be a boolean, not \(value.typeName)")
            }
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

/// The maintenance endpoints: `POST /admin/{operation}`.
enum MaintenanceOperation: String, Sendable {
    case vacuum
    case checkpoint
    case optimize
}

/// A maintenance request, its body checked.
enum MaintenanceRequest {
    case vacuum
    case checkpoint(CheckpointMode)
    case optimize(analyze: Bool)

    var operation: MaintenanceOperation {
        switch self {
        case .vacuum: .vacuum
        case .checkpoint: .checkpoint
        case .optimize: .optimize
        }
    }
}
