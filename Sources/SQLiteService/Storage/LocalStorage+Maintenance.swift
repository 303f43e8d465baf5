import SQLiteEngine

extension LocalStorage {
    /// `POST /admin/vacuum`, `/admin/checkpoint` and `/admin/optimize` on the local writer,
    /// while readers go on reading their snapshots.
    ///
    /// - `vacuum`: body empty or `{}` → `{"size_before": n, "size_after": n, "checkpoint": {...}|null}`.
    /// - `checkpoint`: body empty, `{}` or `{"mode": "passive"|"full"|"restart"|"truncate"}` (default passive) →
    ///   `{"mode": ..., "wal_frames": n, "checkpointed_frames": n}`.
    /// - `optimize`: body empty, `{}` or `{"analyze": true|false}` → `{"analyzed": bool}`.
    ///
    /// A lock that cannot be had within the writer's busy timeout is the usual 503 `SQLITE_BUSY` with `Retry-After`.
    func maintenance(_ request: MaintenanceRequest, metrics: ServiceMetrics?) throws(APIError) -> [UInt8] {
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
                SQLiteService.writeCheckpointMembers(checkpoint, into: &writer)
                writer.endObject()
            } else {
                writer.writeNull()
            }
        case .checkpoint(let mode):
            do {
                let result = try onMaintenanceWriter { db in try DatabaseMaintenance.checkpoint(db, mode: mode) }
                metrics?.maintenance.recordCheckpoint(result, trigger: "request")
                SQLiteService.writeCheckpointMembers(result, into: &writer)
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
        return writer.bytes
    }

    /// Runs `body` on the writer in autocommit mode, with no request's transaction around it; while an interactive
    /// transaction holds the writer, it waits for it up to the busy timeout (then 503 `SQLITE_BUSY`).
    private func onMaintenanceWriter<T>(_ body: (Database) throws -> T) throws(APIError) -> T {
        do {
            return try pool.write(waitingUntil: .now + pool.poolConfiguration.configuration.busyTimeout) { db in
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
}
