import Foundation

/// A program of the system's that a test drives (curl, python3): found on `PATH`, run to completion with its output
/// captured.
struct ExternalTool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let url: URL

    /// The program `name` on `PATH`, or nil when it is not installed.
    init?(_ name: String) {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map {
            URL(fileURLWithPath: String($0)).appendingPathComponent(name)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            return nil
        }
        url = found
    }

    /// Runs the program with `arguments`, killing it after `timeoutSeconds`.
    func run(_ arguments: [String], input: String? = nil, timeoutSeconds: Double = 60) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: timer)
        // Both pipes are read to their end on their own threads, so that a full pipe never stalls the program.
        let output = ReadToEnd(stdout.fileHandleForReading)
        let errors = ReadToEnd(stderr.fileHandleForReading)
        process.waitUntilExit()
        timer.cancel()
        return Result(status: process.terminationStatus, stdout: output.text(), stderr: errors.text())
    }
}

/// Reads a file handle to its end on a thread of its own.
private final class ReadToEnd: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// The whole output, once the writer has closed its end (`data` is written before `done` is signalled and read
    /// only after).
    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
