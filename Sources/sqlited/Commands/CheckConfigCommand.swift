import ArgumentParser
import Foundation

/// `sqlited check-config`: validates the configuration without starting anything.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration (file, SQLITED_* environment, flags) without starting.",
        discussion: """
            Exits 0 when it is valid, 78 (EX_CONFIG) with a message naming the key and its source otherwise. \
            See docs/configuration.md.
            """
    )

    @OptionGroup var options: ConfigurationOptions

    @Flag(name: .long, help: "Print every key with its effective value and where it came from (tokens redacted).")
    var print = false

    func run() throws {
        let values: LayeredConfiguration
        do {
            let configuration: DaemonConfiguration
            (configuration, values) = try options.load()
            try configuration.checkConfiguredListeners(values)
        } catch {
            FileHandle.standardError.write(Data("sqlited: configuration error: \(error)\n".utf8))
            throw ExitCode(ServeCommand.configurationErrorExitCode)
        }
        if print {
            for entry in values.entries {
                Swift.print("\(entry.key) = \(entry.value)  (\(entry.source))")
            }
        }
        let file = options.configFilePath(environment: ProcessInfo.processInfo.environment)
        Swift.print("configuration OK" + (file.map { " (\($0))" } ?? " (no configuration file)"))
    }
}
