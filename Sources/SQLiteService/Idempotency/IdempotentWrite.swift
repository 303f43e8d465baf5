import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization

/// A write request run under its `Idempotency-Key`, on either storage, through its ``WriteSession``.
///
/// The request runs in one transaction (the request's savepoint inside a group on the local writer; one leader
/// transaction on the cluster) that first looks the key up in the server's table ``table``:
/// - a stored row for the same request (``IdempotencyFingerprint``) is answered as stored, with
///   `Idempotent-Replayed: true`, and nothing runs; a row for another request is 422 `IDEMPOTENCY_KEY_REUSED`;
/// - otherwise the request runs, and when it keeps something (``WriteAnswer/keepsChanges``) its status and body are
///   inserted in the same transaction, so a crash keeps both or neither; a request that keeps nothing stores
///   nothing.
///
/// Exactly once across nodes: the row's `PRIMARY KEY(scope, key)` is inserted inside the transaction. Two runs of
/// one key on two nodes serialize on the leader's write lock: the second one's transaction is tried again (busy),
/// or its `INSERT` conflicts and it is rolled back whole and run again, and then finds the first one's row.
struct IdempotentWrite {
    /// The server's table of keys.
    static let table = SQLPolicy.serverTablePrefix + "idempotency"

    let key: IdempotencyKey
    let fingerprint: IdempotencyFingerprint
    /// How long a stored key is kept, in seconds.
    let retention: Int64
    let metrics: ServiceMetrics?

    /// Runs `write` under the key on `session`.
    func run(_ write: StorageWrite, on session: any WriteSession) throws(APIError) -> WriteAnswer {
        var attempts = 1
        // Another node stored the key first: look again (its row is committed now).
        let retry = { (error: APIError) -> Bool in
            guard error.code == Self.raceCode, attempts < 3 else { return false }
            attempts += 1
            return true
        }
        return try session.wholeRequest(retrying: retry) { session throws(APIError) in
            try once(write, on: session)
        }
    }

    private func once(_ write: StorageWrite, on session: any WriteSession) throws(APIError) -> WriteAnswer {
        let now = Int64(Date().timeIntervalSince1970)
        if let stored = try lookup(on: session, now: now) {
            guard stored.fingerprint == fingerprint else {
                metrics?.idempotency.reused.increment()
                throw .idempotencyKeyReused
            }
            metrics?.idempotency.replays.increment()
            var response = SQLiteService.jsonResponse(status: stored.status, stored.body)
            response.headers.add(name: "Idempotent-Replayed", value: "true")
            return WriteAnswer(response: response, keepsChanges: false)
        }
        let answer = try write.answer(session)
        guard answer.keepsChanges else { return answer }
        guard case .bytes(let body) = answer.response.body else {
            throw .internal("a keyed write answered with a streamed body")
        }
        try store(status: answer.response.status.code, body: body, now: now, on: session)
        return answer
    }

    private struct Stored {
        var fingerprint: IdempotencyFingerprint
        var status: Int
        var body: [UInt8]
    }

    /// The key's row, nil when there is none (or it has expired: then it is deleted here).
    private func lookup(on session: any WriteSession, now: Int64) throws(APIError) -> Stored? {
        let rows: [[DatabaseValue]]
        do {
            rows = try session.serverStatement(Self.lookupSQL, [.text(key.scope), .text(key.key)])
        } catch  where Self.isMissingTable(error) {
            return nil
        }
        guard let row = rows.first, row.count == 5 else { return nil }
        guard case .text(let request) = row[0], case .blob(let digest) = row[1], case .integer(let status) = row[2],
            case .integer(let created) = row[4]
        else { throw .internal("a stored idempotency key is malformed") }
        if created <= now - retention {
            _ = try session.serverStatement(Self.deleteSQL, [.text(key.scope), .text(key.key)])
            return nil
        }
        let body: [UInt8]
        switch row[3] {
        case .blob(let data): body = Array(data)
        case .text(let text): body = Array(text.utf8)
        default: body = []
        }
        return Stored(
            fingerprint: IdempotencyFingerprint(request: request, bodySHA256: Array(digest)),
            status: Int(status),
            body: body
        )
    }

    /// Inserts the key's row (making the table the first time).
    private func store(status: Int, body: [UInt8], now: Int64, on session: any WriteSession) throws(APIError) {
        let arguments: [DatabaseValue] = [
            .text(key.scope), .text(key.key), .text(fingerprint.request), .blob(Data(fingerprint.bodySHA256)),
            .integer(Int64(status)), .blob(Data(body)), .integer(now),
        ]
        let insert = Self.insertSQL
        do {
            do {
                _ = try session.serverStatement(insert, arguments)
            } catch  where Self.isMissingTable(error) {
                for statement in Self.schema { _ = try session.serverStatement(ServerSQL(statement), []) }
                _ = try session.serverStatement(insert, arguments)
            }
        } catch  where error.code.hasPrefix("SQLITE_CONSTRAINT") {
            var race = APIError.internal("the key was stored by another request meanwhile")
            race.code = Self.raceCode
            throw race
        }
    }

    /// The server's statements of every keyed write, made once.
    private static let lookupSQL = ServerSQL(
        "SELECT request, body_sha256, status, response, created FROM \(table) WHERE scope = ? AND key = ?"
    )
    private static let deleteSQL = ServerSQL("DELETE FROM \(table) WHERE scope = ? AND key = ?")
    private static let insertSQL = ServerSQL(
        "INSERT INTO \(table)(scope, key, request, body_sha256, status, response, created) VALUES (?, ?, ?, ?, ?, ?, ?)"
    )

    /// The statement that makes the table (in the request's transaction, so with it or not at all).
    ///
    /// No index on `created`: it cost every keyed write a second B-tree insert (about 12% of its throughput,
    /// measured), while expiry (``sweep(after:before:run:)``) can walk the primary key in chunks instead.
    static let schema = [
        "CREATE TABLE IF NOT EXISTS \(table)(scope TEXT NOT NULL, key TEXT NOT NULL, request TEXT NOT NULL, "
            + "body_sha256 BLOB NOT NULL, status INTEGER NOT NULL, response BLOB NOT NULL, created INTEGER NOT NULL, "
            + "PRIMARY KEY(scope, key)) WITHOUT ROWID"
    ]

    /// Where an expiry pass is in the table: after this primary key (`("", "")` before the first, since a key is
    /// never empty).
    struct SweepPosition: Equatable {
        var scope = ""
        var key = ""
    }

    /// How many keys one step of an expiry pass looks at: one short write each, so that the requests' writes go on
    /// between the steps of a pass over a large table.
    static let sweepChunk = 512

    /// One step of an expiry pass: deletes the keys stored at or before `cutoff` (Unix seconds) among the next
    /// ``sweepChunk`` keys after `position`; returns where the next step starts and how many of those keys are
    /// left, or nil for the position when this step reached the end of the table.
    ///
    /// - Parameter run: Runs one of the server's statements (``WriteSession/serverStatement(_:_:)``).
    static func sweep(
        after position: SweepPosition,
        before cutoff: Int64,
        run: (ServerSQL, [DatabaseValue]) throws(APIError) -> [[DatabaseValue]]
    ) throws(APIError) -> (next: SweepPosition?, left: Int) {
        let start: [DatabaseValue] = [.text(position.scope), .text(position.key)]
        do throws(APIError) {
            let last = try run(
                ServerSQL(
                    "SELECT scope, key FROM \(table) WHERE (scope, key) > (?, ?) ORDER BY scope, key LIMIT 1 OFFSET ?"
                ),
                start + [.integer(Int64(sweepChunk - 1))]
            ).first
            var next: SweepPosition?
            var range = "(scope, key) > (?, ?)"
            var arguments = start
            if let last, last.count == 2, case .text(let scope) = last[0], case .text(let key) = last[1] {
                next = SweepPosition(scope: scope, key: key)
                range += " AND (scope, key) <= (?, ?)"
                arguments += [.text(scope), .text(key)]
            }
            let delete = ServerSQL("DELETE FROM \(table) WHERE \(range) AND created <= ?")
            _ = try run(delete, arguments + [.integer(cutoff)])
            let left = try run(ServerSQL("SELECT count(*) FROM \(table) WHERE \(range)"), arguments).first?.first
            guard case .integer(let count)? = left else { throw .internal("counting idempotency keys failed") }
            return (next, Int(count))
        } catch  where isMissingTable(error) {
            return (nil, 0)
        }
    }

    /// The code of the internal error that says another request stored the key first (never sent to a client).
    private static let raceCode = "IDEMPOTENCY_RACE"

    private static func isMissingTable(_ error: APIError) -> Bool {
        error.code == "SQLITE_ERROR" && error.message.contains("no such table")
    }
}

/// When the next expiry pass is due: at most once per interval (a tenth of the retention, between one second and
/// ten minutes) per process, run by ``IdempotencyExpiryScheduler`` in the background — on the cluster through the
/// leader like every write. Between two passes a lookup ignores an expired key anyway (and deletes it).
final class IdempotencyExpiry: Sendable {
    private let next = Atomic<Int64>(0)

    init() {}

    /// Whether a pass is due at `now` (Unix seconds); true for one caller per interval.
    func isDue(now: Int64, retention: Int64) -> Bool {
        let due = next.load(ordering: .relaxed)
        guard now >= due else { return false }
        let interval = min(600, max(1, retention / 10))
        return next.compareExchange(expected: due, desired: now + interval, ordering: .relaxed).exchanged
    }
}
