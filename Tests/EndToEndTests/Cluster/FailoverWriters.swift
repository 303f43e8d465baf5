import Dispatch
import Foundation
import Synchronization

/// Concurrent writers for the failover test: each inserts rows `INSERT INTO <table>(k) VALUES (?)` with keys of its
/// own (`r<round>-w<writer>-<sequence>`, never reused for another write) through `POST /update` on one node, and
/// records what each answer says about its key (``FailoverLedger``).
///
/// A 503 whose message says nothing was changed (no leader in time) is retried with the same key: that is the
/// retried write whose row must not appear twice. A 503 saying the outcome is unknown (sent, then the leader was
/// lost) is not retried: its key may or may not be present, but at most once. A transport failure (no answer within
/// the client's timeout) counts as unknown too. Every other status is unexpected and kept for the test to report.
final class FailoverWriters: Sendable {
    let ledger = FailoverLedger()
    private let stopping = Atomic<Bool>(false)
    private let group = DispatchGroup()

    /// Starts `count` writers, spread over `baseURLs` in turn, each on a thread of its own.
    init(count: Int, baseURLs: [String], table: String, round: Int) {
        for writer in 0..<count {
            let baseURL = baseURLs[writer % baseURLs.count]
            onNewThread(group: group) { [self] in
                run(baseURL: baseURL, table: table, keyPrefix: "r\(round)-w\(writer)-")
            }
        }
    }

    /// Asks every writer to stop after its current request and waits for them, at most `timeoutSeconds`.
    ///
    /// - Returns: Whether every writer has stopped.
    func stop(timeoutSeconds: Double) -> Bool {
        stopping.store(true, ordering: .relaxed)
        return group.wait(timeout: .now() + timeoutSeconds) == .success
    }

    private func run(baseURL: String, table: String, keyPrefix: String) {
        // Longer than the node's own 10 s for finding a leader, so a request waiting for an election is answered.
        var client = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
        var sequence = 0
        var retrying = false
        while !stopping.load(ordering: .relaxed) {
            let key = keyPrefix + String(sequence)
            let sentAt = Date()
            let body = #"{"sql": "INSERT INTO \#(table)(k) VALUES (?)", "params": ["\#(key)"]}"#
            guard let response = try? client?.post("/update", body) else {
                ledger.record(key, .unknown)
                client = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 30)
                sequence += 1
                retrying = false
                continue
            }
            switch response.status {
            case 503 where response.header("Retry-After") == nil:
                ledger.record(key, .unexpected("503 without Retry-After: \(response.bodyText)"))
            case 200:
                ledger.record(key, .acknowledged(sentAt: sentAt, answeredAt: Date(), retried: retrying))
            case 503 where response.bodyText.contains("nothing was changed"):
                retrying = true
                ledger.record(key, .notChanged)
                usleep(20_000)
                continue
            case 503 where response.bodyText.contains("may or may not have been committed"):
                ledger.record(key, .unknown)
            default:
                ledger.record(key, .unexpected("\(response.status) \(response.bodyText)"))
            }
            sequence += 1
            retrying = false
        }
    }
}

/// What the writers learnt about each key, safe to update from every writer thread (a `Mutex`).
final class FailoverLedger: Sendable {
    /// The last answer for one key.
    enum Outcome: Sendable {
        /// 2xx: the row must be present once on every node; `retried` after one or more "nothing changed" 503s.
        case acknowledged(sentAt: Date, answeredAt: Date, retried: Bool)
        /// 503 "nothing was changed", and not retried since (the writer was stopped): the row must be absent.
        case notChanged
        /// 503 outcome unknown, or no answer: the row may be present, at most once.
        case unknown
        /// Any other answer (status and body).
        case unexpected(String)
    }

    private let outcomes = Mutex<[String: Outcome]>([:])
    private let retriedCount = Atomic<Int>(0)

    func record(_ key: String, _ outcome: Outcome) {
        if case .notChanged = outcome { retriedCount.add(1, ordering: .relaxed) }
        outcomes.withLock { $0[key] = outcome }
    }

    /// Every key's last outcome.
    var all: [String: Outcome] { outcomes.withLock { $0 } }

    /// How many "nothing was changed" 503s were answered (each followed by a retry unless the writer stopped).
    var notChangedAnswers: Int { retriedCount.load(ordering: .relaxed) }

    /// How many writes were acknowledged so far.
    var acknowledgedCount: Int {
        outcomes.withLock { $0.values.count { if case .acknowledged = $0 { true } else { false } } }
    }

    /// When the first write sent at or after `instant` was acknowledged, if one was.
    func firstAcknowledgment(ofWriteSentAfter instant: Date) -> Date? {
        outcomes.withLock { outcomes in
            outcomes.values.compactMap { outcome -> Date? in
                guard case .acknowledged(let sentAt, let answeredAt, _) = outcome, sentAt >= instant else { return nil }
                return answeredAt
            }.min()
        }
    }
}

/// Polls `condition` every 10 ms until it holds.
///
/// - Throws: ``ClusterTestError`` naming `what` when it does not within `timeoutSeconds` (a liveness failure).
func waitFor(_ what: String, timeoutSeconds: Double, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while !condition() {
        guard Date() < deadline else { throw ClusterTestError("no \(what) within \(timeoutSeconds) s") }
        usleep(10_000)
    }
}
