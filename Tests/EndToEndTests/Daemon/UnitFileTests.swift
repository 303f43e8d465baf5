import Foundation
import Testing

/// The systemd unit files and the install script.
@Suite struct UnitFileTests {
    static let deploy = TestPaths.packageRoot.appendingPathComponent("deploy")

    /// Runs a command to completion and returns its status and combined output.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) throws -> (
        Int32, String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Copies the units into `directory` with `ExecStart` pointing at the built binary (as the installer does for
    /// its prefix), so systemd-analyze can check that the command exists.
    static func stageUnits(in directory: URL) throws -> [String] {
        let binary = TestPaths.builtProduct(named: "sqlited").path
        return try ["sqlited.service", "sqlited.socket"].map { name in
            let text = try String(contentsOf: deploy.appendingPathComponent(name), encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/sqlited", with: binary)
            let target = directory.appendingPathComponent(name)
            try text.write(to: target, atomically: true, encoding: .utf8)
            return target.path
        }
    }

    static var systemdAnalyze: String? {
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `systemd-analyze verify` accepts both units without a single warning.
    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze (Debian package systemd; .ci/run installs it)"))
    func units_passSystemdAnalyzeVerify() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-units")
        let units = try Self.stageUnits(in: directory.url)
        let (status, output) = try Self.run(try #require(Self.systemdAnalyze), ["verify"] + units)
        #expect(status == 0, "\(output)")
        // verify reports unknown keys and bad values as warnings with exit 0: none is allowed.
        let complaints = output.split(separator: "\n").filter { $0.contains(directory.url.path) }
        #expect(complaints.isEmpty, "\(output)")
    }

    /// The service is hardened: systemd's own exposure score stays at "OK" level (2.0 or less out of 10).
    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze"))
    func service_isHardened() throws {
        let directory = try TemporaryDirectory(prefix: "sqlited-units")
        let units = try Self.stageUnits(in: directory.url)
        let (status, output) = try Self.run(
            try #require(Self.systemdAnalyze),
            ["security", "--offline=true", "--threshold=20", units[0]]
        )
        #expect(status == 0, "\(output)")
        let text = try String(contentsOf: Self.deploy.appendingPathComponent("sqlited.service"), encoding: .utf8)
        for directive in [
            "Type=notify", "ExecReload=", "WatchdogSec=", "StateDirectory=sqlited", "DynamicUser=yes",
            "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "SystemCallFilter=@system-service",
            "RestrictAddressFamilies=", "CapabilityBoundingSet=\n", "RestartPreventExitStatus=78",
        ] {
            #expect(text.contains(directive), "missing \(directive)")
        }
    }

    /// The install script stages the binary, a valid configuration (database in the state directory) and the units
    /// with the chosen prefix, and keeps an existing configuration.
    @Test func installScript_stagesFilesAndKeepsExistingConfig() throws {
        let stage = try TemporaryDirectory(prefix: "sqlited-install")
        let script = TestPaths.packageRoot.appendingPathComponent("scripts/install.sh").path
        var environment = ProcessInfo.processInfo.environment
        environment["DESTDIR"] = stage.url.path
        environment["PREFIX"] = "/opt/sqlited"
        environment["BINARY"] = TestPaths.builtProduct(named: "sqlited").path
        let (status, output) = try Self.run("/bin/bash", [script], environment: environment)
        #expect(status == 0, "\(output)")
        let root = stage.url.path
        #expect(FileManager.default.isExecutableFile(atPath: root + "/opt/sqlited/bin/sqlited"))
        let config = try String(contentsOfFile: root + "/etc/sqlited/sqlited.yaml", encoding: .utf8)
        #expect(config.contains("path: \"/var/lib/sqlited/sqlited.sqlite\""))
        let service = try String(contentsOfFile: root + "/etc/systemd/system/sqlited.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/opt/sqlited/bin/sqlited serve --config /etc/sqlited/sqlited.yaml"))
        #expect(!service.contains("/usr/local/bin"))
        #expect(FileManager.default.fileExists(atPath: root + "/etc/systemd/system/sqlited.socket"))

        try "log:\n  level: debug\n".write(
            toFile: root + "/etc/sqlited/sqlited.yaml",
            atomically: true,
            encoding: .utf8
        )
        let (again, againOutput) = try Self.run("/bin/bash", [script], environment: environment)
        #expect(again == 0, "\(againOutput)")
        #expect(
            try String(contentsOfFile: root + "/etc/sqlited/sqlited.yaml", encoding: .utf8) == "log:\n  level: debug\n"
        )
        #expect(FileManager.default.fileExists(atPath: root + "/etc/sqlited/sqlited.yaml.dist"))
    }
}
