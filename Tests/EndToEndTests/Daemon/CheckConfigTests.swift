import Foundation
import Synchronization
import Testing

/// Configuration loading: layering, validation messages and `check-config`, through the real binary.
@Suite struct CheckConfigTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `sqlited arguments…` to completion with exactly `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = TestPaths.builtProduct(named: "sqlited")
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // A configuration wrongly accepted would start a server that never exits: end it, the test then fails.
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        let stderrData = Mutex(Data())
        let stderrDone = DispatchSemaphore(value: 0)
        onNewThread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            stderrData.withLock { $0 = data }
            stderrDone.signal()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        stderrDone.wait()
        let stderr = stderrData.withLock { $0 }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// `check-config --print` lines as key → (value, source).
    static func printed(_ output: String) -> [String: (value: String, source: String)] {
        var result: [String: (String, String)] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.range(of: " = "), let open = line.range(of: "  (", options: .backwards) else {
                continue
            }
            let key = String(line[..<equals.lowerBound])
            let value = String(line[equals.upperBound..<open.lowerBound])
            let source = String(line[open.upperBound...].dropLast())
            result[key] = (value, source)
        }
        return result
    }

    static var shippedConfig: String {
        TestPaths.packageRoot.appendingPathComponent("config/sqlited.yaml").path
    }

    /// 64 hexadecimal digits, a well-formed token hash.
    static let someHash = String(repeating: "ab", count: 32)

    /// The shipped `config/sqlited.yaml` is valid, sets every key, and states each key's real default.
    @Test func shippedConfig_documentsEveryKeyWithItsDefault() throws {
        let defaults = try Self.run(["check-config", "--print"])
        #expect(defaults.status == 0, "\(defaults.stderr)")
        let fromFile = try Self.run(["check-config", "--config", Self.shippedConfig, "--print"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let defaultValues = Self.printed(defaults.stdout)
        let fileValues = Self.printed(fromFile.stdout)
        #expect(defaultValues.count > 30)
        #expect(Set(defaultValues.keys) == Set(fileValues.keys))
        for (key, value) in defaultValues {
            #expect(value.source == "default")
            #expect(fileValues[key]?.source == "file \(Self.shippedConfig)", "\(key) is not set in the shipped file")
            #expect(fileValues[key]?.value == value.value, "\(key): the file says something else than the default")
        }
    }

    /// Flags beat the environment, which beats the file, which beats the defaults.
    @Test func layering_flagsOverEnvironmentOverFileOverDefaults() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-config")
        let file = directory.path("sqlited.yaml")
        try """
        listen:
          port: 1111
          host: "::1"
        database:
          readers: 7
        limits:
          max_rows: 50
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try Self.run(
            ["check-config", "--config", file.path, "--print", "--port", "3333"],
            environment: ["SQLITED_LISTEN_PORT": "2222", "SQLITED_DATABASE_READERS": "9"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let values = Self.printed(result.stdout)
        #expect(values["listen.port"]?.value == "3333")
        #expect(values["listen.port"]?.source == "command-line flag --port")
        #expect(values["database.readers"]?.value == "9")
        #expect(values["database.readers"]?.source == "environment variable SQLITED_DATABASE_READERS")
        #expect(values["listen.host"]?.value == "::1")
        #expect(values["limits.max_rows"]?.source == "file \(file.path)")
        #expect(values["limits.max_body_size"]?.source == "default")
    }

    /// `SQLITED_CONFIG` names the file when `--config` is absent.
    @Test func configFile_fromEnvironmentVariable() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-config")
        let file = directory.path("sqlited.yaml")
        try "log:\n  level: debug\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try Self.run(["check-config", "--print"], environment: ["SQLITED_CONFIG": file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.printed(result.stdout)["log.level"]?.value == "debug")
    }

    /// An unknown key, a wrong type and an impossible value each stop with exit 78 and a message naming the key and
    /// the file (or variable, or flag).
    @Test(arguments: [
        ("listen:\n  prot: 80\n", "key 'listen.prot': unknown key"),
        ("listen:\n  port: eighty\n", "key 'listen.port': wrong type, expected an integer"),
        ("listen:\n  port: 70000\n", "key 'listen.port': 70000 is out of range (0...65535)"),
        ("database:\n  readers: 0\n", "key 'database.readers': 0 is out of range (1...64)"),
        ("idempotency:\n  retention: 0\n", "key 'idempotency.retention': 0 is out of range (1...31536000)"),
        ("listen:\n  event_loops: 300\n", "key 'listen.event_loops': 300 is out of range (0...256)"),
        ("database:\n  journal_mode: delete\n", "key 'database.journal_mode': must be one of wal"),
        ("log:\n  level: loud\n", "key 'log.level': must be one of trace, debug"),
        ("auth:\n  tokens: [\"plain-token-0123456789\"]\n", "key 'auth.tokens': entry #1 must be NAME:ROLE:SHA256"),
        ("auth:\n  tokens: [\"ci:root:\(Self.someHash)\"]\n", "key 'auth.tokens': entry #1 (\"ci\"): unknown role"),
        ("auth:\n  tokens: [\"ci:read:abc123\"]\n", "key 'auth.tokens': entry #1 (\"ci\"): the hash must be 64 hex"),
        ("auth:\n  tokens: [\"c i:read:\(Self.someHash)\"]\n", "key 'auth.tokens': entry #1: the name must be"),
        ("auth:\n  allow_unauthenticated_remote: maybe\n", "key 'auth.allow_unauthenticated_remote': wrong type"),
        ("- just\n- a list\n", "the top level must be a mapping"),
        ("listen: 8080\n", "key 'listen': must be a mapping of keys"),
    ])
    func invalidFile_stopsNamingKeyAndFile(yaml: String, message: String) throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-config")
        let file = directory.path("bad.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let database = directory.path("db.sqlite").path
        for arguments in [["check-config", "--config", file.path], ["--config", file.path, "--database", database]] {
            let result = try Self.run(arguments)
            #expect(result.status == 78)
            #expect(result.stderr.contains("file \(file.path): \(message)"), "\(result.stderr)")
        }
    }

    /// A wrongly typed value is an error even where a higher layer overrides it.
    @Test func invalidFile_rejectedEvenWhenOverridden() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-config")
        let file = directory.path("bad.yaml")
        try "listen:\n  port: eighty\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try Self.run(["check-config", "--config", file.path, "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("file \(file.path): key 'listen.port': wrong type"), "\(result.stderr)")
    }

    /// A bad environment variable or flag is named as such; an unknown `SQLITED_*` variable is rejected.
    @Test func invalidEnvironmentAndFlags_areNamed() throws {
        let wrongType = try Self.run(["check-config"], environment: ["SQLITED_LIMITS_MAX_ROWS": "many"])
        #expect(wrongType.status == 78)
        #expect(wrongType.stderr.contains("environment variable SQLITED_LIMITS_MAX_ROWS: key 'limits.max_rows'"))
        let unknown = try Self.run(["check-config"], environment: ["SQLITED_LIMITS_MAX_ROW": "5"])
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("environment variable SQLITED_LIMITS_MAX_ROW: unknown setting"))
        let flag = try Self.run(["check-config", "--readers", "100"])
        #expect(flag.status == 78)
        #expect(flag.stderr.contains("command-line flag --readers: key 'database.readers': 100 is out of range"))
        let missing = try Self.run(["check-config", "--config", "/nonexistent/sqlited.yaml"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("file /nonexistent/sqlited.yaml: cannot read the file"))
    }

    /// `serve --check-config` validates and exits without serving; `--print` shows token entries as `NAME:ROLE`,
    /// never their hashes.
    @Test func checkConfigFlag_andTokensShownByNameAndRole() throws {
        let readHash = String(repeating: "0f", count: 32)
        let writeHash = String(repeating: "E1", count: 32)
        let environment = ["SQLITED_AUTH_TOKENS": "ci:read:\(readHash), app:write:\(writeHash)"]
        let serve = try Self.run(["--check-config", "--port", "0"], environment: environment)
        #expect(serve.status == 0, "\(serve.stderr)")
        #expect(serve.stdout.contains("configuration OK"))
        let printed = try Self.run(["check-config", "--print"], environment: environment)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(!printed.stdout.contains(readHash) && !printed.stdout.contains(writeHash))
        let tokens = Self.printed(printed.stdout)["auth.tokens"]
        #expect(tokens?.value == "[ci:read, app:write]")
        #expect(tokens?.source == "environment variable SQLITED_AUTH_TOKENS")
    }

    /// A duplicate name or hash in `SQLITED_AUTH_TOKENS` stops with exit 78, naming the variable and both
    /// positions; the hash appears by its first 8 digits only, and a plain token (not a hash) never appears.
    @Test func tokenEntries_duplicatesAndPlainTokensAreRefusedWithoutEchoing() throws {
        let hash = String(repeating: "5a", count: 32)
        let other = String(repeating: "6b", count: 32)
        let sameHash = try Self.run(
            ["check-config"],
            environment: ["SQLITED_AUTH_TOKENS": "ci:read:\(hash),app:write:\(hash.uppercased())"]
        )
        #expect(sameHash.status == 78)
        #expect(
            sameHash.stderr.contains(
                "environment variable SQLITED_AUTH_TOKENS: key 'auth.tokens': entries #1 and #2 have the same hash "
                    + "(5a5a5a5a…)"
            ),
            "\(sameHash.stderr)"
        )
        #expect(!sameHash.stderr.contains(String(hash.prefix(9))))
        let sameName = try Self.run(
            ["check-config"],
            environment: ["SQLITED_AUTH_TOKENS": "ci:read:\(hash),x:admin:\(other),ci:write:\(other)"]
        )
        #expect(sameName.status == 78)
        #expect(sameName.stderr.contains("key 'auth.tokens': entries #1 and #3 are both named \"ci\""))
        let token = "plain-s3cret-token-0123456789"
        let plain = try Self.run(["check-config"], environment: ["SQLITED_AUTH_TOKENS": "ci:read:\(hash),\(token)"])
        #expect(plain.status == 78)
        #expect(plain.stderr.contains("key 'auth.tokens': entry #2 must be NAME:ROLE:SHA256HEX"), "\(plain.stderr)")
        #expect(!plain.stderr.contains(token))
    }

    /// With no token, a non-loopback `listen.host` is refused (exit 78, naming both keys) unless
    /// `auth.allow_unauthenticated_remote` is true; a token or a loopback host makes it acceptable.
    @Test(arguments: ["0.0.0.0", "::", "192.168.1.20"])
    func remoteHostWithoutTokens_isRefusedUnlessAllowed(host: String) throws {
        let refused = try Self.run(["check-config", "--host", host])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("command-line flag --host: refusing to listen on"), "\(refused.stderr)")
        #expect(refused.stderr.contains("auth.tokens") && refused.stderr.contains("auth.allow_unauthenticated_remote"))
        let allowed = try Self.run(
            ["check-config", "--host", host],
            environment: ["SQLITED_AUTH_ALLOW_UNAUTHENTICATED_REMOTE": "true"]
        )
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let withToken = try Self.run(
            ["check-config", "--host", host],
            environment: ["SQLITED_AUTH_TOKENS": "ci:read:\(String(repeating: "0f", count: 32))"]
        )
        #expect(withToken.status == 0, "\(withToken.stderr)")
        #expect(try Self.run(["check-config", "--host", "::1"]).status == 0)
    }
}
