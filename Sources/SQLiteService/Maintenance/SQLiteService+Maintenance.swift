import HTTPServer
import SQLiteEngine

extension SQLiteService {
    /// `POST /admin/vacuum`, `/admin/checkpoint` and `/admin/optimize` (role `admin`): the body checked the same
    /// way for both storages, the operation run by the storage (``Storage/maintenance(_:metrics:)``).
    func maintenanceResponse(
        _ operation: MaintenanceOperation,
        _ request: HTTPRequest,
        _ settings: ServiceSettings
    ) throws(APIError) -> HTTPResponse {
        let maintenance = try Self.maintenanceRequest(operation, body: request.body)
        let output = try store.maintenance(maintenance, metrics: settings.options.metrics)
        logger.info("maintenance done", metadata: ["operation": "\(operation.rawValue)"])
        return Self.jsonResponse(output)
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
    static func writeCheckpointMembers(
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

extension APISchemas {
    /// The JSON Schemas of the maintenance endpoints (OpenAPI, ``APISchemas``).
    static let maintenance: [(name: String, json: String)] = [
        (
            "Checkpoint",
            ##"{"type": "object", "required": ["mode", "wal_frames", "checkpointed_frames"], "properties": {"mode": {"type": "string"}, "wal_frames": {"type": "integer"}, "checkpointed_frames": {"type": "integer"}}}"##
        ),
        (
            "Vacuum",
            ##"{"type": "object", "required": ["size_before", "size_after", "checkpoint"], "properties": {"size_before": {"type": "integer"}, "size_after": {"type": "integer"}, "checkpoint": {"type": ["object", "null"], "description": "The checkpoint VACUUM ran after itself (WAL mode), else null.", "required": ["mode", "wal_frames", "checkpointed_frames"], "properties": {"mode": {"type": "string"}, "wal_frames": {"type": "integer"}, "checkpointed_frames": {"type": "integer"}}}}}"##
        ),
        (
            "CheckpointRequest",
            ##"{"type": "object", "additionalProperties": false, "properties": {"mode": {"type": "string", "enum": ["passive", "full", "restart", "truncate"]}}}"##
        ),
        (
            "OptimizeRequest",
            ##"{"type": "object", "additionalProperties": false, "properties": {"analyze": {"type": "boolean"}}}"##
        ),
        (
            "Optimize",
            ##"{"type": "object", "required": ["analyzed"], "properties": {"analyzed": {"type": "boolean"}}}"##
        ),
    ]
}
