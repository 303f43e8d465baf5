import Foundation
import Synchronization
import Testing

/// Group commit against the real binary: no write answered 2xx is ever lost when the process is killed.
@Suite(.serialized) struct GroupCommitCrashTests {
    /// Checks, over 20 rounds, that after 64 concurrent writers (each write carrying a unique key) and a SIGKILL at a
    /// random moment, the restarted daemon has every write that was answered 200 and passes `integrity_check`.
    @Test func groupCommit_crashLosesNoAcknowledgedWrite() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-crash")
        var acknowledgedTotal = 0
        for round in 0..<20 {
            let server = try ServerProcess.startSqlited(directory: directory.url)
            let setup = try server.makeClient()
            let created = try setup.postJSON(
                "/update",
                text: #"{"sql": "CREATE TABLE IF NOT EXISTS w(k TEXT PRIMARY KEY)"}"#
            )
            try #require(created.status == 200)
            setup.close()
            let acknowledged = AcknowledgedKeys()
            let baseURL = server.baseURL
            for writer in 0..<64 {
                Thread {
                    defer { acknowledged.writerEnded() }
                    guard let client = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 5) else { return }
                    var sequence = 0
                    while true {
                        let key = "r\(round)-w\(writer)-\(sequence)"
                        sequence += 1
                        guard
                            let response = try? client.postJSON(
                                "/update",
                                text: #"{"sql": "INSERT INTO w(k) VALUES (?)", "params": [""# + key + #""]}"#
                            ), response.status == 200
                        else { return }
                        acknowledged.insert(key)
                    }
                }.start()
            }
            // A random moment: 50–600 ms into the writes.
            usleep(UInt32.random(in: 50_000...600_000))
            server.kill()
            while acknowledged.finishedWriters(expected: 64) == false { usleep(5_000) }

            let restarted = try ServerProcess.startSqlited(directory: directory.url)
            let client = try restarted.makeClient()
            let stored = try client.postJSON(
                "/query",
                text: #"{"sql": "SELECT k FROM w WHERE k LIKE ?", "params": ["r\#(round)-%"], "shape": "arrays", "#
                    + #""max_rows": 100000}"#
            )
            try #require(stored.status == 200)
            var present = Set<String>()
            if case .array(let rows)? = try stored.json()["rows"] {
                for case .array(let row) in rows {
                    if case .string(let key)? = row.first { present.insert(key) }
                }
            }
            let keys = acknowledged.keys
            let lost = keys.subtracting(present)
            #expect(lost.isEmpty, "round \(round): \(lost.count) of \(keys.count) acknowledged writes lost")
            acknowledgedTotal += keys.count
            let integrity = try client.postJSON(
                "/query",
                text: #"{"sql": "PRAGMA integrity_check", "shape": "arrays"}"#
            )
            #expect(integrity.bodyText.contains(#"[["ok"]]"#), "round \(round): \(integrity.bodyText)")
            client.close()
            try restarted.stop()
        }
        #expect(acknowledgedTotal > 0)
    }
}

/// The keys whose insert was answered 200, and how many writer threads have ended.
private final class AcknowledgedKeys: Sendable {
    private let storage = Mutex<Set<String>>([])
    private let ended = Atomic<Int>(0)

    func insert(_ key: String) { storage.withLock { _ = $0.insert(key) } }

    var keys: Set<String> { storage.withLock { $0 } }

    func writerEnded() { ended.add(1, ordering: .relaxed) }

    func finishedWriters(expected: Int) -> Bool { ended.load(ordering: .relaxed) >= expected }
}
