import Configuration
import Foundation
import Yams

/// Configuration values looked up in layers: command-line flags, then `SQLITED_*` environment variables, then the
/// YAML configuration file, then the built-in default.
///
/// Parsing and type conversion are swift-configuration's (`InMemoryProvider` for flags,
/// `EnvironmentVariablesProvider`, `YAMLSnapshot`); this type asks each layer in order of precedence itself, so that
/// an error names the layer the bad value came from. It also remembers every key it was asked for, so that
/// ``checkForUnknownKeys()`` can reject keys in the file or the environment that nothing reads (a typo would
/// otherwise be ignored silently).
///
/// Not `Sendable`: it is built, read and dropped on one thread.
final class LayeredConfiguration {
    /// A resolved value, for `check-config --print` and the startup log.
    struct Entry: Sendable, Equatable {
        let key: String
        /// The value as text (`<redacted>` for secrets).
        let value: String
        let source: ConfigurationSource
    }

    /// The environment variable that names the configuration file.
    static let configFileVariable = "SQLITED_CONFIG"
    /// Prefix of the environment variables that set keys.
    static let environmentPrefix = "SQLITED_"

    private struct Layer {
        let snapshot: any ConfigSnapshot
        /// The source of a key found in this layer.
        let source: (_ key: String) -> ConfigurationSource
    }

    private let layers: [Layer]
    /// Every key set in the file, dotted (`listen.port`).
    private let fileKeys: [String]
    private let filePath: String?
    /// Every `SQLITED_*` variable except ``configFileVariable``.
    private let environmentNames: [String]
    private(set) var entries: [Entry] = []

    /// Loads the layers.
    ///
    /// - Parameters:
    ///   - flags: Values given on the command line, by dotted key, with the flag's name.
    ///   - environment: The process environment; only `SQLITED_*` variables are read.
    ///   - filePath: The YAML file to read, or `nil` for none.
    /// - Throws: ``ConfigurationError`` when the file cannot be read or is not a YAML mapping.
    init(
        flags: [String: (flag: String, value: ConfigContent)],
        environment: [String: String],
        filePath: String?
    ) throws(ConfigurationError) {
        var layers: [Layer] = []
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        var flagNames: [String: String] = [:]
        for (key, flag) in flags {
            flagValues[Self.absoluteKey(key)] = ConfigValue(flag.value, isSecret: false)
            flagNames[key] = flag.flag
        }
        layers.append(
            Layer(snapshot: InMemoryProvider(name: "flags", values: flagValues).snapshot()) { key in
                .flag(flagNames[key] ?? key)
            }
        )

        var prefixed: [String: String] = [:]
        for (name, value) in environment
        where name.hasPrefix(Self.environmentPrefix) && name != Self.configFileVariable {
            prefixed[String(name.dropFirst(Self.environmentPrefix.count))] = value
        }
        environmentNames = prefixed.keys.map { Self.environmentPrefix + $0 }.sorted()
        layers.append(
            Layer(snapshot: EnvironmentVariablesProvider(environmentVariables: prefixed).snapshot()) { key in
                .environment(Self.environmentName(of: key))
            }
        )

        self.filePath = filePath
        if let filePath {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: filePath))
            } catch {
                throw ConfigurationError(
                    key: nil,
                    source: .file(filePath),
                    message: "cannot read the file (\(Self.reason(error)))"
                )
            }
            let keys = try Self.listKeys(yaml: data, path: filePath)
            fileKeys = keys
            if !keys.isEmpty {
                let bytes = [UInt8](data)
                let snapshot: YAMLSnapshot
                do {
                    snapshot = try YAMLSnapshot(
                        data: bytes.span.bytes,
                        providerName: filePath,
                        parsingOptions: .default
                    )
                } catch {
                    throw ConfigurationError(key: nil, source: .file(filePath), message: "\(error)")
                }
                layers.append(Layer(snapshot: snapshot) { _ in .file(filePath) })
            }
        } else {
            fileKeys = []
        }
        self.layers = layers
    }

    // MARK: Typed lookups

    /// A string value.
    func string(_ key: String, default defaultValue: String, secret: Bool = false) throws(ConfigurationError) -> String
    {
        guard let (content, source) = try lookup(key, type: .string) else {
            record(key, secret ? Self.redacted : defaultValue, .defaultValue)
            return defaultValue
        }
        guard case .string(let value) = content else { throw Self.wrongType(key, source, "a string") }
        record(key, secret ? Self.redacted : value, source)
        return value
    }

    /// An integer value within `range`.
    func int(_ key: String, default defaultValue: Int, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let (content, source) = try lookup(key, type: .int) else {
            record(key, "\(defaultValue)", .defaultValue)
            return defaultValue
        }
        guard case .int(let value) = content else { throw Self.wrongType(key, source, "an integer") }
        guard range.contains(value) else {
            throw ConfigurationError(
                key: key,
                source: source,
                message: "\(value) is out of range (\(range.lowerBound)...\(range.upperBound))"
            )
        }
        record(key, "\(value)", source)
        return value
    }

    /// A Boolean value (`true`/`false`; the environment also takes `1`/`0`, `yes`/`no`).
    func bool(_ key: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let (content, source) = try lookup(key, type: .bool) else {
            record(key, "\(defaultValue)", .defaultValue)
            return defaultValue
        }
        guard case .bool(let value) = content else { throw Self.wrongType(key, source, "true or false") }
        record(key, "\(value)", source)
        return value
    }

    /// One of the raw values of `T`.
    func choice<T: RawRepresentable & CaseIterable>(
        _ key: String,
        default defaultValue: T
    ) throws(ConfigurationError) -> T where T.RawValue == String {
        guard let (content, source) = try lookup(key, type: .string) else {
            record(key, defaultValue.rawValue, .defaultValue)
            return defaultValue
        }
        let allowed = T.allCases.map(\.rawValue)
        guard case .string(let text) = content, let value = T(rawValue: text.lowercased()) else {
            throw ConfigurationError(
                key: key,
                source: source,
                message: "must be one of \(allowed.joined(separator: ", "))"
            )
        }
        record(key, value.rawValue, source)
        return value
    }

    /// A list of strings (a YAML sequence; comma-separated in the environment).
    func stringArray(
        _ key: String,
        default defaultValue: [String],
        secret: Bool = false
    ) throws(ConfigurationError) -> [String] {
        guard let (content, source) = try lookup(key, type: .stringArray) else {
            record(key, Self.describe(defaultValue, secret: secret), .defaultValue)
            return defaultValue
        }
        guard case .stringArray(let values) = content else { throw Self.wrongType(key, source, "a list of strings") }
        record(key, Self.describe(values, secret: secret), source)
        return values
    }

    /// Replaces how the value last read for `key` is shown (`check-config --print`, the startup log), once the caller
    /// has parsed it into something safe to show (token entries as `NAME:ROLE`, without their hashes).
    func describe(_ key: String, as text: String) {
        guard let index = entries.lastIndex(where: { $0.key == key }) else { return }
        entries[index] = Entry(key: key, value: text, source: entries[index].source)
    }

    /// The source of the value last read for `key` (`.defaultValue` when it was not set anywhere).
    func source(of key: String) -> ConfigurationSource {
        entries.last { $0.key == key }?.source ?? .defaultValue
    }

    /// Rejects keys in the file and `SQLITED_*` variables that no lookup asked for.
    ///
    /// Call it after reading every key.
    func checkForUnknownKeys() throws(ConfigurationError) {
        let known = Set(entries.map(\.key))
        if let filePath, let unknown = fileKeys.first(where: { !known.contains($0) }) {
            let isSection = known.contains { $0.hasPrefix(unknown + ".") }
            throw ConfigurationError(
                key: unknown,
                source: .file(filePath),
                message: isSection ? "must be a mapping of keys" : "unknown key"
            )
        }
        let knownVariables = Set(known.map(Self.environmentName(of:)))
        if let unknown = environmentNames.first(where: { !knownVariables.contains($0) }) {
            throw ConfigurationError(key: nil, source: .environment(unknown), message: "unknown setting")
        }
    }

    /// The environment variable that sets `key` (`listen.port` → `SQLITED_LISTEN_PORT`).
    static func environmentName(of key: String) -> String {
        environmentPrefix + key.replacingOccurrences(of: ".", with: "_").uppercased()
    }

    // MARK: Internals

    private static let redacted = "<redacted>"

    /// The value of the first layer that sets `key`.
    ///
    /// Every layer that sets the key must give it the right type, even one that a higher layer overrides: a broken
    /// file is reported now, not the day a flag is dropped.
    private func lookup(
        _ key: String,
        type: ConfigType
    ) throws(ConfigurationError) -> (ConfigContent, ConfigurationSource)? {
        let absolute = Self.absoluteKey(key)
        var found: (ConfigContent, ConfigurationSource)?
        for layer in layers {
            do {
                let result = try layer.snapshot.value(forKey: absolute, type: type)
                if let value = result.value, found == nil {
                    found = (value.content, layer.source(key))
                }
            } catch {
                throw Self.wrongType(key, layer.source(key), Self.expectation(of: type))
            }
        }
        return found
    }

    private func record(_ key: String, _ value: String, _ source: ConfigurationSource) {
        entries.append(Entry(key: key, value: value, source: source))
    }

    private static func absoluteKey(_ key: String) -> AbsoluteConfigKey {
        AbsoluteConfigKey(key.split(separator: ".").map(String.init))
    }

    private static func wrongType(
        _ key: String,
        _ source: ConfigurationSource,
        _ expected: String
    ) -> ConfigurationError {
        ConfigurationError(key: key, source: source, message: "wrong type, expected \(expected)")
    }

    private static func expectation(of type: ConfigType) -> String {
        switch type {
        case .int: "an integer"
        case .bool: "true or false"
        case .stringArray: "a list of strings"
        default: "a string"
        }
    }

    private static func describe(_ values: [String], secret: Bool) -> String {
        secret ? "\(values.count) value(s), redacted" : "[" + values.joined(separator: ", ") + "]"
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return (error as NSError).localizedDescription
    }

    /// The dotted keys of a YAML file's leaves (scalars and sequences), parsed with Yams.
    private static func listKeys(yaml data: Data, path: String) throws(ConfigurationError) -> [String] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigurationError(key: nil, source: .file(path), message: "not valid YAML: \(error)")
        }
        guard let root else { return [] }
        guard let mapping = root.mapping else {
            throw ConfigurationError(key: nil, source: .file(path), message: "the top level must be a mapping")
        }
        var keys: [String] = []
        func walk(_ mapping: Node.Mapping, prefix: String) throws(ConfigurationError) {
            for (keyNode, value) in mapping {
                guard let name = keyNode.string else {
                    throw ConfigurationError(key: prefix, source: .file(path), message: "a key is not a string")
                }
                let key = prefix.isEmpty ? name : prefix + "." + name
                if let nested = value.mapping {
                    try walk(nested, prefix: key)
                } else {
                    keys.append(key)
                }
            }
        }
        try walk(mapping, prefix: "")
        return keys
    }
}
