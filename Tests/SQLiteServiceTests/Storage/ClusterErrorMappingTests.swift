import DqliteCluster
import Testing

@testable import SQLiteService

/// How the cluster client's errors become the contract's errors on the cluster backend.
@Suite struct ClusterErrorMappingTests {
    /// A statement the leader refused keeps SQLite's extended code, its name and its status, as on the local
    /// backend.
    @Test func leaderFailure_isTheSameSQLiteError() {
        let error = ClusterError(kind: .failure, code: 2067, message: "UNIQUE constraint failed: t.x")
        let mapped = APIError(cluster: error, isWrite: true)
        #expect(mapped.status == 409)
        #expect(mapped.code == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(mapped.sqliteCode == 2067)
        #expect(mapped.message == "UNIQUE constraint failed: t.x")
    }

    /// SQLITE_READONLY from the read-only client (`PRAGMA query_only=1` on the leader) is a write sent to
    /// `/query`; from the writing client it stays SQLite's error.
    @Test func readOnlyFailure_isReadonlyStatementOnlyForQuery() {
        let error = ClusterError(kind: .failure, code: 8, message: "attempt to write a readonly database")
        #expect(APIError(cluster: error, isWrite: false).code == "READONLY_STATEMENT")
        #expect(APIError(cluster: error, isWrite: false).status == 400)
        #expect(APIError(cluster: error, isWrite: true).code == "SQLITE_READONLY")
    }

    /// A write whose outcome is unknown, and no leader in time, are 503 `UNAVAILABLE` with `Retry-After`; the
    /// first says the write may have been committed.
    @Test func outcomeUnknownAndNoLeader_are503WithRetryAfter() {
        let unknown = APIError(
            cluster: ClusterError(kind: .outcomeUnknown, message: "connection closed"),
            isWrite: true
        )
        #expect(unknown.status == 503)
        #expect(unknown.code == "UNAVAILABLE")
        #expect(unknown.message.contains("may or may not have been committed"))
        #expect(unknown.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
        let noLeader = APIError(cluster: ClusterError(kind: .unavailable, message: "no leader"), isWrite: false)
        #expect(noLeader.status == 503)
        #expect(noLeader.code == "UNAVAILABLE")
        #expect(noLeader.headers.contains { $0.name == "Retry-After" })
    }

    /// A read the leader did not answer within the request's time limit is the local backend's TIMEOUT for an
    /// interrupted statement.
    @Test func deadlineExceeded_isTheLocalTimeout() {
        let error = APIError(cluster: ClusterError(kind: .deadlineExceeded, message: "late"), isWrite: false)
        #expect(error.status == 400)
        #expect(error.code == "TIMEOUT")
        #expect(error.message == "the statement time limit was reached before the cluster's leader answered")
    }

    /// A value the wire cannot carry is the client's BIND_ERROR; an answer over the client's limit is
    /// SQLITE_TOOBIG.
    @Test func invalidArgumentAndTooLarge_are400() {
        let invalid = APIError(cluster: ClusterError(kind: .invalidArgument, message: "NUL"), isWrite: true)
        #expect(invalid.code == "BIND_ERROR")
        let tooLarge = APIError(cluster: ClusterError(kind: .tooLarge, message: "big"), isWrite: false)
        #expect(tooLarge.code == "SQLITE_TOOBIG")
        #expect(tooLarge.status == 400)
    }
}
