public import Foundation

/// A real `sqlited` for tests of the client and of the programs built on it (`Examples/`): the binary
/// `SQLITED_BINARY` names (`make client-test` sets it to the server's debug build), serving a new database in a
/// temporary folder on a free loopback port, stopped when released.
public final class SqlitedServer: @unchecked Sendable {
    public let url: URL
    public let directory: URL
    private let process: Process

    /// The binary under test; a missing one is a failure, not a skip (`make client-test` always sets it).
    public static var binary: String {
        get throws {
            guard let path = ProcessInfo.processInfo.environment["SQLITED_BINARY"], !path.isEmpty else {
                throw SetupError("set SQLITED_BINARY to a built sqlited (make client-test does)")
            }
            return path
        }
    }

    /// Starts the server; `tokens` are `NAME:ROLE:TOKEN` entries, hashed with `sqlited hash-token`.
    public init(tokens: [String] = [], environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlited-client-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SQLITED_") }
        env.merge(environment) { $1 }
        if !tokens.isEmpty {
            env["SQLITED_AUTH_TOKENS"] = try tokens.map { entry in
                let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
                return "\(parts[0]):\(parts[1]):\(try Self.hash(parts[2]))"
            }.joined(separator: ",")
        }
        let stderr = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary)
        process.arguments = ["serve", "--database", directory.appendingPathComponent("db.sqlite").path, "--port", "0"]
        process.environment = env
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        url = try Self.listeningURL(from: stderr.fileHandleForReading)
        // Keep draining stderr so that the server never blocks on a full pipe.
        stderr.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
    }

    deinit {
        // Bounded: a server that does not stop is killed rather than left to hang the run.
        if process.isRunning { process.terminate() }
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Reads stderr up to the `sqlited: listening on URL` line.
    private static func listeningURL(from handle: FileHandle) throws -> URL {
        let prefix = "sqlited: listening on "
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { throw SetupError("sqlited exited before listening:\n\(text)") }
            text += String(decoding: chunk, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
                if let url = URL(string: String(line.dropFirst(prefix.count))) { return url }
            }
        }
        throw SetupError("no listening line within 30 s:\n\(text)")
    }

    /// `sqlited hash-token`'s hash of `token`.
    private static func hash(_ token: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary)
        process.arguments = ["hash-token"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(token.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
