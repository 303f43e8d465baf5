import Foundation
import Synchronization
import Testing

/// Group commit against the real binary under `strace`: no acknowledgement leaves the process before the fsync that
/// covers its write.
@Suite struct GroupCommitOrderingTests {
    /// Checks, for every acknowledged insert of 16 concurrent clients, that a `fsync`/`fdatasync` of the WAL started
    /// after the WAL write holding the row and finished before the response carrying the row (RETURNING) was sent.
    @Test func groupCommit_noAcknowledgementBeforeItsFsync() throws {
        guard let strace = ["/usr/bin/strace", "/bin/strace"].first(where: FileManager.default.isExecutableFile)
        else {
            Issue.record("strace is not installed (.ci/run installs it): the ordering test cannot run")
            return
        }
        let directory = try TemporaryDirectory(prefix: "sqlited-order")
        let trace = directory.path("trace.log").path
        let server = try ServerProcess(
            executableURL: URL(fileURLWithPath: strace),
            arguments: [
                "-f", "-tt", "-y", "-s", "65536", "-o", trace,
                "-e", "trace=fsync,fdatasync,pwrite64,write,writev,sendto,sendmsg",
                "--", TestPaths.builtProduct(named: "sqlited").path,
                "--database", directory.path("db.sqlite").path, "--host", "127.0.0.1", "--port", "0",
                "--log-level", "warning",
            ]
        )
        let setup = try server.makeClient()
        try #require(
            try setup.postJSON("/update", text: #"{"sql": "CREATE TABLE w(k TEXT PRIMARY KEY)"}"#).status == 200
        )
        setup.close()
        let acknowledged = Mutex<[String]>([])
        let finished = Atomic<Int>(0)
        let baseURL = server.baseURL
        for client in 0..<16 {
            Thread {
                defer { finished.add(1, ordering: .relaxed) }
                guard let connection = try? HTTPTestClient(baseURL: baseURL, timeoutSeconds: 20) else { return }
                for number in 0..<10 {
                    let key = "ord-\(client)-\(number)-key"
                    let body = #"{"sql": "INSERT INTO w(k) VALUES (?) RETURNING k", "params": [""# + key + #""]}"#
                    guard let response = try? connection.postJSON("/update", text: body), response.status == 200
                    else { return }
                    acknowledged.withLock { $0.append(key) }
                }
            }.start()
        }
        while finished.load(ordering: .relaxed) < 16 { usleep(10_000) }
        // A signal to strace would only detach it: stop the traced daemon, and strace ends with it.
        let daemon = try #require(Self.onlyChild(of: server.processIdentifier))
        kill(daemon, SIGTERM)
        try server.waitForExit(timeoutSeconds: 30)

        let keys = acknowledged.withLock { $0 }
        #expect(keys.count == 160)
        let events = try StraceLog(path: trace)
        for key in keys {
            guard let written = events.firstWALWrite(containing: key) else {
                Issue.record("\(key): no WAL write holds it")
                continue
            }
            guard let sent = events.firstResponse(containing: key) else {
                Issue.record("\(key): no response carrying it was sent")
                continue
            }
            let covered = events.walSyncs.contains { $0.start >= written && $0.end <= sent }
            #expect(
                covered,
                "\(key): acknowledged at \(sent) without a WAL fsync between its write (\(written)) and it"
            )
        }
    }
}

extension GroupCommitOrderingTests {
    /// The process `strace` started, read from `/proc/<pid>/task/<pid>/children`.
    fileprivate static func onlyChild(of pid: Int32) -> Int32? {
        let path = "/proc/\(pid)/task/\(pid)/children"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let children = text.split(separator: " ").compactMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return children.count == 1 ? children[0] : nil
    }
}

/// The system calls of an `strace -f -tt -y` log that the ordering test needs.
private struct StraceLog {
    struct Sync {
        var start: Double
        var end: Double
    }

    /// WAL writes: time and text of the call.
    private(set) var walWrites: [(time: Double, text: Substring)] = []
    /// Writes to sockets that start an HTTP response.
    private(set) var responses: [(time: Double, text: Substring)] = []
    private(set) var walSyncs: [Sync] = []

    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var pendingSyncs: [Substring: Double] = [:]  // pid -> start of an unfinished WAL fsync
        for line in text.split(separator: "\n") {
            // "PID HH:MM:SS.uuuuuu call(...)"
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let time = Self.seconds(parts[1]) else { continue }
            let pid = parts[0]
            let call = parts[2]
            if call.hasPrefix("<... fsync resumed>") || call.hasPrefix("<... fdatasync resumed>") {
                if let start = pendingSyncs.removeValue(forKey: pid) { walSyncs.append(Sync(start: start, end: time)) }
            } else if call.hasPrefix("fsync(") || call.hasPrefix("fdatasync(") {
                guard call.contains("-wal>") else { continue }
                if call.hasSuffix("<unfinished ...>") {
                    pendingSyncs[pid] = time
                } else {
                    walSyncs.append(Sync(start: time, end: time))
                }
            } else if call.hasPrefix("pwrite64("), call.contains("-wal>") {
                walWrites.append((time, call))
            } else if call.hasPrefix("write(") || call.hasPrefix("writev(") || call.hasPrefix("sendto(")
                || call.hasPrefix("sendmsg(")
            {
                if call.contains("socket:"), call.contains("HTTP/1.1 200") { responses.append((time, call)) }
            }
        }
    }

    /// The commit that first put the key in the WAL (later commits rewrite the same page with it, so the last would be
    /// wrong).
    func firstWALWrite(containing key: String) -> Double? {
        walWrites.first { $0.text.contains(key) }?.time
    }

    func firstResponse(containing key: String) -> Double? {
        responses.first { $0.text.contains(key) }?.time
    }

    /// "HH:MM:SS.uuuuuu" in seconds since midnight.
    private static func seconds(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":")
        guard fields.count == 3, let hours = Double(fields[0]), let minutes = Double(fields[1]),
            let seconds = Double(fields[2])
        else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }
}
