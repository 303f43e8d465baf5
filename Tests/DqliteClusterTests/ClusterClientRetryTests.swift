import DqliteClient
import Glibc
import Testing

@testable import DqliteCluster

/// The retry rules of ClusterClient against a scripted fake server: a write is retried only when it certainly did
/// not reach the leader; a write whose outcome is unknown is thrown as `outcomeUnknown`, never sent twice.
@Suite(.timeLimit(.minutes(1)))
struct ClusterClientRetryTests {
    private static let execSQL = FakeDqliteServer.execSQLType
    private static let querySQL = FakeDqliteServer.querySQLType
    private static let inserted = DqliteResponse.result(DqliteExecResult(lastInsertID: 7, rowsAffected: 1))

    private func client(_ server: FakeDqliteServer, callTimeout: Duration = .seconds(3)) -> ClusterClient {
        ClusterClient(
            members: [server.address],
            options: ClusterClient.Options(
                database: "test.db",
                callTimeout: callTimeout,
                connection: DqliteConnection.Options(connectTimeout: .seconds(1), requestTimeout: .milliseconds(500))
            )
        )
    }

    /// Checks that a write whose connection closes after it was sent is `outcomeUnknown`, sent once.
    @Test func write_connectionClosedAfterSending_isOutcomeUnknownAndNotRetried() throws {
        let server = try FakeDqliteServer { server, type, _ in server.leaderAnswer(type) ?? .close }
        let error = clusterError { try client(server).exec("INSERT INTO t VALUES (1)") }
        #expect(error?.kind == .outcomeUnknown)
        #expect(error?.sql == "INSERT INTO t VALUES (1)")
        #expect(server.count(of: Self.execSQL) == 1)
    }

    /// Checks that a write that gets no answer before the request timeout is `outcomeUnknown`, sent once.
    @Test func write_noAnswerBeforeTimeout_isOutcomeUnknownAndNotRetried() throws {
        let server = try FakeDqliteServer { server, type, _ in server.leaderAnswer(type) ?? .silence }
        #expect(clusterError { try client(server).exec("INSERT INTO t VALUES (1)") }?.kind == .outcomeUnknown)
        #expect(server.count(of: Self.execSQL) == 1)
    }

    /// Checks that a write the server refused as a non-leader, before running it, is retried and succeeds.
    @Test func write_refusedAsNotLeader_isRetried() throws {
        let server = try FakeDqliteServer { server, type, seen in
            server.leaderAnswer(type)
                ?? (seen == 0
                    ? .answer(.failure(code: DqliteError.notLeaderCode, message: "not leader"))
                    : .answer(Self.inserted))
        }
        let result = try client(server).exec("INSERT INTO t VALUES (1)")
        #expect(result == DqliteExecResult(lastInsertID: 7, rowsAffected: 1))
        #expect(server.count(of: Self.execSQL) == 2)
    }

    /// Checks that a write refused while the leadership moves (dqlite 1.11 answers raft_apply's RAFT_NOTLEADER, 7,
    /// with SQLite's last message, "no more rows available") is retried, not answered as SQLITE_NOMEM (issue #23).
    @Test func write_refusedDuringLeadershipTransfer_isRetried() throws {
        let server = try FakeDqliteServer { server, type, seen in
            server.leaderAnswer(type)
                ?? (seen < 2
                    ? .answer(.failure(code: DqliteError.raftNotLeaderCode, message: "no more rows available"))
                    : .answer(Self.inserted))
        }
        let result = try client(server).exec("INSERT INTO t VALUES (1)")
        #expect(result == DqliteExecResult(lastInsertID: 7, rowsAffected: 1))
        #expect(server.count(of: Self.execSQL) == 3)
    }

    /// Checks that a write refused that way until the call timeout is `.unavailable` (it certainly did not run),
    /// never `.failure` with code 7.
    @Test func write_refusedDuringTransferUntilTimeout_isUnavailable() throws {
        let server = try FakeDqliteServer { server, type, _ in
            server.leaderAnswer(type)
                ?? .answer(.failure(code: DqliteError.raftNotLeaderCode, message: "no more rows available"))
        }
        let error = clusterError {
            try client(server, callTimeout: .milliseconds(300)).exec("INSERT INTO t VALUES (1)")
        }
        #expect(error?.kind == .unavailable)
        #expect(server.count(of: Self.execSQL) >= 1)
    }

    /// Checks that a write answered with SQLITE_IOERR_LEADERSHIP_LOST (replication interrupted) is
    /// `outcomeUnknown`, sent once.
    @Test func write_leadershipLost_isOutcomeUnknown() throws {
        let server = try FakeDqliteServer { server, type, _ in
            server.leaderAnswer(type) ?? .answer(.failure(code: DqliteError.leadershipLostCode, message: "lost"))
        }
        #expect(clusterError { try client(server).exec("INSERT INTO t VALUES (1)") }?.kind == .outcomeUnknown)
        #expect(server.count(of: Self.execSQL) == 1)
    }

    /// Checks that a write the leader refuses for SQL reasons is `.failure` with SQLite's code, sent once.
    @Test func write_sqlFailure_isThrownNotRetried() throws {
        let server = try FakeDqliteServer { server, type, _ in
            server.leaderAnswer(type) ?? .answer(.failure(code: 2067, message: "UNIQUE constraint failed: t.v"))
        }
        let error = clusterError { try client(server).exec("INSERT INTO t VALUES (1)") }
        #expect(error?.kind == .failure)
        #expect(error?.code == 2067)
        #expect(server.count(of: Self.execSQL) == 1)
    }

    /// Checks that a pooled connection the server closed while idle is noticed before a write is sent on it: the
    /// next write goes over a new connection and succeeds (no `outcomeUnknown` for a request never sent).
    @Test func write_afterIdleConnectionClosed_usesNewConnection() throws {
        let server = try FakeDqliteServer { server, type, _ in
            server.leaderAnswer(type) ?? .answerThenClose(Self.inserted)
        }
        let client = client(server)
        _ = try client.exec("INSERT INTO t VALUES (1)")
        usleep(50_000)
        _ = try client.exec("INSERT INTO t VALUES (2)")
        #expect(server.count(of: Self.execSQL) == 2)
    }

    /// Checks that a read whose connection broke after it was sent is retried, and returns the rows.
    @Test func read_connectionClosed_isRetried() throws {
        let rows = DqliteRows(columns: ["v"], rows: [[.integer(1)]])
        let server = try FakeDqliteServer { server, type, seen in
            server.leaderAnswer(type) ?? (seen == 0 ? .close : .answer(.rows(rows)))
        }
        #expect(try client(server).query("SELECT v FROM t") == rows)
        #expect(server.count(of: Self.querySQL) == 2)
    }

    /// Checks that a read not answered by the caller's deadline ends there as `.deadlineExceeded`, sent once (not
    /// retried until the call timeout, as a read without a deadline is), and that the leader stays known: the next
    /// read, on a new connection, gets its rows.
    @Test func read_notAnsweredByTheCallersDeadline_isDeadlineExceededAndNotRetried() throws {
        let rows = DqliteRows(columns: ["v"], rows: [[.integer(1)]])
        let server = try FakeDqliteServer { server, type, seen in
            server.leaderAnswer(type) ?? (seen == 0 ? .silence : .answer(.rows(rows)))
        }
        let client = client(server)
        let error = clusterError {
            try client.query("SELECT v FROM t", deadline: .now + .milliseconds(200))
        }
        #expect(error?.kind == .deadlineExceeded)
        #expect(error?.sql == "SELECT v FROM t")
        #expect(server.count(of: Self.querySQL) == 1)
        #expect(client.leader != nil)
        #expect(try client.query("SELECT v FROM t", deadline: .now + .seconds(5)) == rows)
        #expect(server.count(of: Self.querySQL) == 2)
    }

    /// Checks that a read whose deadline has already passed is not sent at all.
    @Test func read_withItsDeadlinePassed_isNotSent() throws {
        let server = try FakeDqliteServer { server, type, _ in
            server.leaderAnswer(type) ?? .answer(.rows(DqliteRows(columns: [], rows: [])))
        }
        let error = clusterError { try client(server).query("SELECT 1", deadline: .now - .milliseconds(1)) }
        #expect(error?.kind == .deadlineExceeded)
        #expect(server.count(of: Self.querySQL) == 0)
    }

    /// Checks that without a caller's deadline the same silence is retried until the call timeout, then
    /// `.unavailable` (a read is safe to send again), so the deadline above is what ends the call.
    @Test func read_notAnsweredWithoutDeadline_isRetriedUntilTheCallTimeout() throws {
        let server = try FakeDqliteServer { server, type, _ in server.leaderAnswer(type) ?? .silence }
        let error = clusterError { try client(server, callTimeout: .milliseconds(1200)).query("SELECT v FROM t") }
        #expect(error?.kind == .unavailable)
        #expect(server.count(of: Self.querySQL) >= 2)
    }

    /// Checks that with no leader known the call ends with `.unavailable` once the call timeout passed.
    @Test func noLeader_isUnavailableAtTheDeadline() throws {
        let server = try FakeDqliteServer { _, type, _ in
            type == FakeDqliteServer.leaderType ? .answer(.server(id: 0, address: "")) : .close
        }
        let started = ContinuousClock.now
        let error = clusterError {
            try client(server, callTimeout: .milliseconds(300)).exec("INSERT INTO t VALUES (1)")
        }
        #expect(error?.kind == .unavailable)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(server.count(of: Self.execSQL) == 0)
    }

    /// Checks the rules as a table: which errors allow a retry of a read and of a write.
    /// Checks that a statement of a transaction refused because the node closed the connection's database (it
    /// stopped leading: "no database opened", `SQLITE_NOTFOUND`) or is not the leader is `.unavailable` — the
    /// transaction is lost uncommitted — never a statement `.failure`, and that a COMMIT refused so is too.
    @Test func transaction_gatewayClosed_isUnavailable() throws {
        for refusal in [
            DqliteResponse.failure(code: DqliteError.gatewayClosedCode, message: "no database opened"),
            DqliteResponse.failure(code: DqliteError.gatewayClosedCode, message: "no statement with the given id"),
            DqliteResponse.failure(code: DqliteError.notLeaderCode, message: "not leader"),
        ] {
            // On each server BEGIN succeeds and every later statement is refused.
            func refusingAfterBegin() throws -> (FakeDqliteServer, ClusterClient) {
                let server = try FakeDqliteServer { server, type, seen in
                    server.leaderAnswer(type) ?? .answer(seen == 0 ? Self.inserted : refusal)
                }
                return (server, client(server))
            }
            let (statementServer, statementClient) = try refusingAfterBegin()
            defer { _ = statementServer }
            let transaction = try statementClient.beginTransaction()
            let statement = clusterError { try transaction.exec("INSERT INTO t VALUES (1)") }
            #expect(statement?.kind == .unavailable, "\(refusal)")
            #expect(clusterError { try statementClient.commit(transaction) }?.kind == .unavailable, "\(refusal)")

            let (commitServer, commitClient) = try refusingAfterBegin()
            defer { _ = commitServer }
            let committing = try commitClient.beginTransaction()
            #expect(clusterError { try commitClient.commit(committing) }?.kind == .unavailable, "\(refusal)")
        }
    }

    @Test func retryPolicy_decisions() {
        func decide(_ error: DqliteError, write: Bool) -> RetryPolicy.Decision {
            RetryPolicy.decide(after: error, isWrite: write)
        }
        let notLeader = DqliteError(kind: .failure, code: DqliteError.notLeaderCode, message: "")
        // dqlite 1.11's answer to a write during a leadership transfer: raft_apply's RAFT_NOTLEADER as the code.
        let transferring = DqliteError(kind: .failure, code: 7, message: "no more rows available")
        let lost = DqliteError(kind: .failure, code: DqliteError.leadershipLostCode, message: "")
        let busy = DqliteError(kind: .failure, code: 5, message: "")
        let closed = DqliteError(kind: .failure, code: 12, message: "no database opened")
        let constraint = DqliteError(kind: .failure, code: 2067, message: "")
        let broken = DqliteError(kind: .connectionClosed, message: "")
        let unsent = DqliteError(kind: .io, code: UInt64(EPIPE), message: "", requestNotSent: true)
        let timeout = DqliteError(kind: .timeout, message: "")
        #expect(decide(notLeader, write: true) == .retry(forgetLeader: true))
        #expect(decide(transferring, write: true) == .retry(forgetLeader: true))
        #expect(decide(busy, write: true) == .retry(forgetLeader: false))
        #expect(decide(closed, write: true) == .retry(forgetLeader: true))
        #expect(decide(unsent, write: true) == .retry(forgetLeader: true))
        #expect(decide(lost, write: true) == .fail(.outcomeUnknown, keepConnection: false))
        #expect(decide(broken, write: true) == .fail(.outcomeUnknown, keepConnection: false))
        #expect(decide(timeout, write: true) == .fail(.outcomeUnknown, keepConnection: false))
        #expect(decide(constraint, write: true) == .fail(.failure, keepConnection: true))
        for error in [notLeader, transferring, closed, lost, broken, timeout, unsent] {
            #expect(decide(error, write: false) == .retry(forgetLeader: true))
        }
        #expect(decide(constraint, write: false) == .fail(.failure, keepConnection: true))
    }
}
