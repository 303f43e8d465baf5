import Foundation
import SQLiteService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Token authentication through the real binary: `auth.tokens` from the configuration file, roles per endpoint,
/// SIGHUP reload of tokens, the request log line, and the refusal to serve remote clients without tokens.
@Suite struct AuthenticationTests {
    static let readToken = "read-token-0123456789abcdef"
    static let writeToken = "write-token-0123456789abcdef"
    static let adminToken = "admin-token-0123456789abcdef"

    /// The `auth.tokens` entries for the three tokens (or for the given subset of roles).
    static func tokenEntries(_ roles: [TokenRole] = TokenRole.allCases) -> String {
        let tokens: [TokenRole: (name: String, token: String)] = [
            .read: ("reporting", readToken), .write: ("app", writeToken), .admin: ("ops", adminToken),
        ]
        return roles.map { role in
            let (name, token) = tokens[role]!
            return "    - \"\(name):\(role.rawValue):\(TokenStore.sha256Hex(of: token))\"\n"
        }.joined()
    }

    static func bearer(_ token: String) -> [(String, String)] {
        [("Authorization", "Bearer \(token)")]
    }

    static func errorCode(_ response: HTTPTestResponse) throws -> String? {
        try response.json()["error"]?["code"]?.stringValue
    }

    /// Each role reaches exactly its endpoints; no token or a wrong one is 401 with `WWW-Authenticate: Bearer`;
    /// `/health` is open; a token in the query string is refused; the request log line names the token, never the
    /// token itself; a reload that removes the write token makes it 401.
    @Test func roles_areEnforcedLoggedAndReloaded() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-auth")
        let file = directory.path("sqlited.yaml")
        let database = directory.path("db.sqlite").path
        func writeConfig(_ roles: [TokenRole]) throws {
            try """
            listen:
              port: 0
            database:
              path: "\(database)"
            auth:
              tokens:
            \(Self.tokenEntries(roles))
            """.write(to: file, atomically: true, encoding: .utf8)
        }
        try writeConfig(TokenRole.allCases)
        let (daemon, notify) = try DaemonProcess.startedReady(
            arguments: ["serve", "--config", file.path],
            in: directory
        )
        let url = try #require(try daemon.waitForListeners().first)
        let client = try HTTPTestClient(baseURL: url)
        let create = #"{"sql": "CREATE TABLE t(x)"}"#
        let insert = #"{"sql": "INSERT INTO t VALUES (1)"}"#
        let query = #"{"sql": "SELECT x FROM t"}"#
        let batch = #"{"statements": [{"sql": "INSERT INTO t VALUES (2)"}]}"#

        let anonymous = try client.postJSON("/query", text: query)
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try Self.errorCode(anonymous) == "UNAUTHORIZED")
        let wrong = try client.postJSON("/query", text: query, headers: Self.bearer("wrong-token-0123456789abcdef"))
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try client.get("/health").status == 200)

        let write = Self.bearer(Self.writeToken)
        #expect(try client.postJSON("/update", text: create, headers: write).status == 200)
        #expect(try client.postJSON("/update", text: insert, headers: write).status == 200)
        let writerMetrics = try client.get("/metrics", headers: write)
        #expect(writerMetrics.status == 403)
        #expect(try Self.errorCode(writerMetrics) == "FORBIDDEN")

        let read = Self.bearer(Self.readToken)
        let readQuery = try client.postJSON("/query", text: query, headers: read)
        #expect(readQuery.status == 200)
        #expect(try readQuery.json()["rows"]?.arrayValue?.count == 1)
        for (path, body) in [("/update", insert), ("/batch", batch), ("/transaction", batch)] {
            let refused = try client.postJSON(path, text: body, headers: read)
            #expect(refused.status == 403, "\(path)")
            #expect(try Self.errorCode(refused) == "FORBIDDEN", "\(path)")
        }
        #expect(try client.postJSON("/query", text: query, headers: read).json()["rows"]?.arrayValue?.count == 1)

        let adminMetrics = try client.get("/metrics", headers: Self.bearer(Self.adminToken))
        #expect(adminMetrics.status == 200)

        let inQuery = try client.postJSON("/query?access_token=\(Self.readToken)", text: query, headers: read)
        #expect(inQuery.status == 400)
        #expect(try Self.errorCode(inQuery) == "INVALID_REQUEST")

        try writeConfig([.read, .admin])
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        let removed = try client.postJSON("/update", text: insert, headers: write)
        #expect(removed.status == 401)
        #expect(try client.postJSON("/query", text: query, headers: read).status == 200)

        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
        let log = daemon.stderr
        let requestLines = log.split(separator: "\n").filter { $0.contains(": request ") }
        #expect(requestLines.contains { $0.contains("path=/update") && $0.contains("token=app") })
        #expect(requestLines.contains { $0.contains("path=/query") && $0.contains("token=reporting") })
        #expect(requestLines.contains { $0.contains("path=/metrics") && $0.contains("token=ops") })
        #expect(log.contains("configuration changed key=auth.tokens value=\"2 token(s)\""))
        for secret in [Self.readToken, Self.writeToken, Self.adminToken] {
            #expect(!log.contains(secret))
            #expect(!log.contains(TokenStore.sha256Hex(of: secret)))
        }
    }

    /// Without tokens, `--host 0.0.0.0` stops the start with exit 78 and a message naming both keys; with
    /// `SQLITED_AUTH_ALLOW_UNAUTHENTICATED_REMOTE=true` the daemon starts and warns.
    @Test func remoteListenerWithoutTokens_refusedUnlessExplicitlyAllowed() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-auth")
        let database = directory.path("db.sqlite").path
        let arguments = ["serve", "--host", "0.0.0.0", "--port", "0", "--database", database]

        let refused = try DaemonProcess(arguments: arguments, environment: [:], directory: directory.url)
        #expect(try refused.waitForExit() == .exited(78))
        let message = refused.stderr
        #expect(message.contains("command-line flag --host: refusing to listen on 0.0.0.0:0"), "\(message)")
        #expect(message.contains("auth.tokens") && message.contains("auth.allow_unauthenticated_remote"))
        #expect(!message.contains(ServerProcess.listeningPrefix))
        #expect(!FileManager.default.fileExists(atPath: database))

        let allowed = try DaemonProcess(
            arguments: arguments,
            environment: ["SQLITED_AUTH_ALLOW_UNAUTHENTICATED_REMOTE": "true"],
            directory: directory.url
        )
        _ = try allowed.waitForListeners()
        allowed.send(SIGTERM)
        #expect(try allowed.waitForExit() == .exited(0))
        #expect(allowed.stderr.contains("serving without authentication on a non-loopback address"))
        #expect(allowed.stderr.contains("listeners=0.0.0.0:0"), "\(allowed.stderr)")
    }

    /// On a non-loopback listener, a reload that removes every token is refused (the running tokens stay), unless
    /// `auth.allow_unauthenticated_remote` is true.
    @Test func reloadRemovingLastTokenOnRemoteListener_isRefused() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-auth")
        let file = directory.path("sqlited.yaml")
        let database = directory.path("db.sqlite").path
        try "auth:\n  tokens:\n\(Self.tokenEntries([.read]))".write(to: file, atomically: true, encoding: .utf8)
        let (daemon, notify) = try DaemonProcess.startedReady(
            arguments: ["serve", "--config", file.path, "--host", "0.0.0.0", "--port", "0", "--database", database],
            in: directory
        )
        let url = try #require(try daemon.waitForListeners().first)
        let client = try HTTPTestClient(baseURL: url.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1"))
        let query = #"{"sql": "SELECT 1"}"#

        try "auth:\n  tokens: []\n".write(to: file, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        #expect(daemon.stderr.contains("reload failed, keeping the running configuration"))
        #expect(daemon.stderr.contains("refusing to listen on 0.0.0.0:0"))
        #expect(try client.postJSON("/query", text: query).status == 401)
        #expect(try client.postJSON("/query", text: query, headers: Self.bearer(Self.readToken)).status == 200)

        try "auth:\n  tokens: []\n  allow_unauthenticated_remote: true\n".write(
            to: file,
            atomically: true,
            encoding: .utf8
        )
        daemon.send(SIGHUP)
        try notify.waitFor("RELOADING=1")
        try notify.waitFor("READY=1")
        #expect(try client.postJSON("/query", text: query).status == 200)

        daemon.send(SIGTERM)
        #expect(try daemon.waitForExit() == .exited(0))
    }

    /// `hash-token` hashes the token on standard input (line break dropped) to `TokenStore.sha256Hex(of:)`;
    /// `--generate` prints a new token on stderr and its hash on stdout; a short token fails.
    @Test func hashToken_hashesStdinGeneratesAndRefusesShortTokens() throws {
        let token = "my-service-token-0123456789"
        let hashed = try Self.runHashToken([], stdin: token + "\n")
        #expect(hashed.status == 0, "\(hashed.stderr)")
        #expect(hashed.stdout == TokenStore.sha256Hex(of: token) + "\n")

        let generated = try Self.runHashToken(["--generate"], stdin: "")
        #expect(generated.status == 0, "\(generated.stderr)")
        let newToken = try #require(generated.stderr.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(newToken.count == 64)
        #expect(generated.stdout == TokenStore.sha256Hex(of: newToken) + "\n")
        #expect(!generated.stdout.contains(newToken))

        let short = try Self.runHashToken([], stdin: "short\n")
        #expect(short.status != 0)
        #expect(short.stdout.isEmpty)
        #expect(short.stderr.contains("too short"))
    }

    static func runHashToken(_ arguments: [String], stdin: String) throws -> CheckConfigTests.Run {
        let process = Process()
        process.executableURL = TestPaths.builtProduct(named: "sqlited")
        process.arguments = ["hash-token"] + arguments
        process.environment = [:]
        let input = Pipe()
        let output = try TemporaryDirectory(prefix: "sqlited-hash")
        let outURL = output.path("stdout")
        let errURL = output.path("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return CheckConfigTests.Run(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8)
        )
    }
}
