import ArgumentParser
import Foundation

/// `sqlited serve` (the default subcommand): serves the database until SIGTERM or SIGINT; SIGHUP reloads.
struct ServeCommand: ParsableCommand {
    /// `EX_CONFIG` from sysexits.h: the unit file's `RestartPreventExitStatus=` keeps systemd from restarting a
    /// daemon whose configuration is wrong.
    static let configurationErrorExitCode: Int32 = 78

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the database over HTTP/JSON (the default command).",
        discussion: """
            With no options, serves data/sqlited.sqlite (created on first run, with its folder) on \
            http://127.0.0.1:8080. Settings come from flags, then SQLITED_* environment variables, then the \
            configuration file, then defaults (see config/sqlited.yaml). See docs/configuration.md and \
            docs/running.md.
            """
    )

    @OptionGroup var options: ConfigurationOptions

    @Flag(name: .long, help: "Validate the configuration and exit (same as the check-config command).")
    var checkConfig = false

    func run() throws {
        let configuration: DaemonConfiguration
        let values: LayeredConfiguration
        do {
            (configuration, values) = try options.load()
        } catch {
            FileHandle.standardError.write(Data("sqlited: configuration error: \(error)\n".utf8))
            throw ExitCode(Self.configurationErrorExitCode)
        }
        if checkConfig {
            do {
                try configuration.checkConfiguredListeners(values)
            } catch {
                FileHandle.standardError.write(Data("sqlited: configuration error: \(error)\n".utf8))
                throw ExitCode(Self.configurationErrorExitCode)
            }
            print("configuration OK")
            return
        }
        let runner = ServerRunner(
            configuration: configuration,
            entries: values.entries,
            options: options,
            version: SqlitedCommand.version
        )
        do {
            try runner.runUntilStopped()
        } catch let error as ConfigurationError {
            // Already logged by the runner; the exit status tells systemd not to restart (RestartPreventExitStatus=).
            FileHandle.standardError.write(Data("sqlited: configuration error: \(error)\n".utf8))
            throw ExitCode(Self.configurationErrorExitCode)
        }
    }
}
