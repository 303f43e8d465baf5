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
        DispatchQueue.global().async {
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
        ("database:\n  journal_mode: delete\n", "key 'database.journal_mode': must be one of wal"),
        ("log:\n  level: loud\n", "key 'log.level': must be one of trace, debug"),
        ("auth:\n  tokens: [\"short\"]\n", "key 'auth.tokens': token #1 must be 16 to 512"),
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

    /// `serve --check-config` validates and exits without serving; tokens never appear in `--print`.
    @Test func checkConfigFlag_andTokensRedacted() throws {
        let token = "s3cret-token-0123456789"
        let serve = try Self.run(["--check-config", "--port", "0"], environment: ["SQLITED_AUTH_TOKENS": token])
        #expect(serve.status == 0, "\(serve.stderr)")
        #expect(serve.stdout.contains("configuration OK"))
        let printed = try Self.run(["check-config", "--print"], environment: ["SQLITED_AUTH_TOKENS": token])
        #expect(printed.status == 0)
        #expect(!printed.stdout.contains(token))
        #expect(Self.printed(printed.stdout)["auth.tokens"]?.value == "1 value(s), redacted")
    }
}
