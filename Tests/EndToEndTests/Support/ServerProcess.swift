import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server child process for end-to-end tests: started with pipes on stdout/stderr, its listening addresses read
/// from the `sqlited: listening on http://HOST:PORT` lines it prints to stderr (one per listener), stopped with a
/// signal and waited for.
///
/// Every line the process writes is kept (``stderrLines``, ``stdoutLines``) so a failing test can show them.
/// `deinit` kills a process that is still running, so a failing test never leaves a server behind.
/// Not `Sendable`: one test owns it.
final class ServerProcess {
    /// The executable that was started.
    let executableURL: URL
    let arguments: [String]
    /// Listening addresses in the order announced, e.g. `http://127.0.0.1:43121`.
    private(set) var listeningURLs: [String] = []

    private let process: Process
    private let output: CapturedOutput
    private var exitStatus: ExitStatus?

    /// How the process ended.
    enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// Why starting or stopping failed; each case carries the process's stderr for the test log.
    enum ServerProcessError: Error, CustomStringConvertible {
        case executableNotFound(String)
        case exitedBeforeListening(ExitStatus, stderr: [String], stdout: [String])
        case startupTimedOut(seconds: Double, stderr: [String])
        case didNotExit(seconds: Double)

        var description: String {
            switch self {
            case .executableNotFound(let path):
                "server executable not found at \(path) (build it first: swift build)"
            case .exitedBeforeListening(let status, let stderr, let stdout):
                "server ended (\(status)) before announcing a listener; stderr:\n" + stderr.joined(separator: "\n")
                    + "\nstdout:\n" + stdout.joined(separator: "\n")
            case .startupTimedOut(let seconds, let stderr):
                "server announced no listener within \(seconds) s; stderr:\n" + stderr.joined(separator: "\n")
            case .didNotExit(let seconds):
                "server did not exit within \(seconds) s"
            }
        }
    }

    /// The prefix of the line announcing a listener (API contract with the `sqlited` executable).
    static let listeningPrefix = "sqlited: listening on "

    /// Starts `executableURL` with `arguments` and waits until it has announced `listenerCount` listeners.
    ///
    /// - Throws: ``ServerProcessError/exitedBeforeListening(_:stderr:stdout:)`` when the process ends first,
    ///   ``ServerProcessError/startupTimedOut(seconds:stderr:)`` (after killing it) when the time runs out.
    init(
        executableURL: URL,
        arguments: [String],
        environment: [String: String]? = nil,
        listenerCount: Int = 1,
        startupTimeoutSeconds: Double = 30
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: executableURL.path) else {
            throw ServerProcessError.executableNotFound(executableURL.path)
        }
        self.executableURL = executableURL
        self.arguments = arguments
        self.output = CapturedOutput()
        self.process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try Self.runWithDefaultSignalMask(process)
        output.startReading(stdoutPipe.fileHandleForReading, stream: .stdout)
        output.startReading(stderrPipe.fileHandleForReading, stream: .stderr)

        let deadline = Date().addingTimeInterval(startupTimeoutSeconds)
        while true {
            let urls = output.listeningURLs()
            if urls.count >= listenerCount {
                listeningURLs = urls
                return
            }
            if !process.isRunning {
                let status = waitForExit()
                output.waitForEndOfStreams(timeoutSeconds: 5)
                throw ServerProcessError.exitedBeforeListening(
                    status,
                    stderr: output.lines(of: .stderr),
                    stdout: output.lines(of: .stdout)
                )
            }
            if Date() >= deadline {
                sendSignal(process.processIdentifier, SIGKILL)
                _ = waitForExit()
                throw ServerProcessError.startupTimedOut(
                    seconds: startupTimeoutSeconds,
                    stderr: output.lines(of: .stderr)
                )
            }
            output.waitForChange(timeoutSeconds: 0.05)
        }
    }

    /// Runs `process` with no signals blocked in the child.
    ///
    /// The child inherits the signal mask of the thread that spawns it, and test threads (Swift concurrency and
    /// Dispatch workers) block most signals; a server started from one would never see the SIGTERM of ``stop()``.
    /// So the mask is cleared around the spawn and restored afterwards.
    private static func runWithDefaultSignalMask(_ process: Process) throws {
        var empty = sigset_t()
        var saved = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try process.run()
    }

    /// Starts the `sqlited` executable built beside the test bundle.
    ///
    /// The default arguments serve `<directory>/db.sqlite` on an ephemeral loopback port.
    static func startSqlited(
        directory: URL,
        extraArguments: [String] = [],
        startupTimeoutSeconds: Double = 30
    ) throws -> ServerProcess {
        try ServerProcess(
            executableURL: TestPaths.builtProduct(named: "sqlited"),
            arguments: [
                "--database", directory.appendingPathComponent("db.sqlite").path,
                "--host", "127.0.0.1",
                "--port", "0",
            ] + extraArguments,
            startupTimeoutSeconds: startupTimeoutSeconds
        )
    }

    deinit {
        if process.isRunning {
            sendSignal(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The first announced listener's base URL.
    var baseURL: String { listeningURLs[0] }

    /// The operating system's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    var isRunning: Bool { process.isRunning }

    /// Lines written to stderr so far.
    var stderrLines: [String] { output.lines(of: .stderr) }

    /// Lines written to stdout so far.
    var stdoutLines: [String] { output.lines(of: .stdout) }

    /// A new client connected to the first listener.
    func makeClient(timeoutSeconds: Double = 10) throws -> HTTPTestClient {
        try HTTPTestClient(baseURL: baseURL, timeoutSeconds: timeoutSeconds)
    }

    /// Sends `signal` and waits for the process to end.
    ///
    /// - Throws: ``ServerProcessError/didNotExit(seconds:)`` if it is still running after `timeoutSeconds`
    ///   (the process is then left running; call ``kill()`` to end it).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeoutSeconds: Double = 15) throws -> ExitStatus {
        if let exitStatus { return exitStatus }
        if process.isRunning {
            sendSignal(process.processIdentifier, signal)
        }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            guard Date() < deadline else { throw ServerProcessError.didNotExit(seconds: timeoutSeconds) }
            usleep(10_000)
        }
        return waitForExit()
    }

    /// Ends the process with SIGKILL (`kill -9`) and waits for it.
    @discardableResult
    func kill() -> ExitStatus {
        if process.isRunning {
            sendSignal(process.processIdentifier, SIGKILL)
        }
        return waitForExit()
    }

    /// Waits until the process ends by itself.
    ///
    /// - Throws: ``ServerProcessError/didNotExit(seconds:)`` on timeout.
    @discardableResult
    func waitForExit(timeoutSeconds: Double) throws -> ExitStatus {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            guard Date() < deadline else { throw ServerProcessError.didNotExit(seconds: timeoutSeconds) }
            usleep(10_000)
        }
        return waitForExit()
    }

    /// Waits for stdout and stderr to reach end of stream (after exit), so the captured lines are complete.
    func waitForOutputToEnd(timeoutSeconds: Double = 5) {
        output.waitForEndOfStreams(timeoutSeconds: timeoutSeconds)
    }

    private func waitForExit() -> ExitStatus {
        if let exitStatus { return exitStatus }
        process.waitUntilExit()
        let status: ExitStatus =
            process.terminationReason == .uncaughtSignal
            ? .signaled(process.terminationStatus) : .exited(process.terminationStatus)
        exitStatus = status
        return status
    }
}

/// `kill(2)`, under another name so the method ``ServerProcess/kill()`` does not shadow it.
private func sendSignal(_ pid: pid_t, _ signal: Int32) {
    _ = kill(pid, signal)
}

/// Lines read from a child's stdout and stderr by background threads.
///
/// `@unchecked Sendable`: the only mutable state is `state`, guarded by its `Mutex`; the condition variable is only
/// used for waking waiters, never to protect data.
private final class CapturedOutput: @unchecked Sendable {
    enum Stream: Sendable {
        case stdout
        case stderr
    }

    private struct State {
        var stdout = LineBuffer()
        var stderr = LineBuffer()
        var openStreams = 0
        var generation = 0
    }

    private struct LineBuffer {
        var lines: [String] = []
        var partial: [UInt8] = []

        mutating func append(_ bytes: [UInt8]) {
            partial += bytes
            while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(partial[..<newline])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                lines.append(String(decoding: line, as: UTF8.self))
                partial.removeFirst(newline + 1)
            }
        }

        mutating func finish() {
            if !partial.isEmpty {
                lines.append(String(decoding: partial, as: UTF8.self))
                partial.removeAll()
            }
        }
    }

    private let state = Mutex(State())
    private let changed = NSCondition()

    func startReading(_ handle: FileHandle, stream: Stream) {
        state.withLock { $0.openStreams += 1 }
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                let bytes = [UInt8](data)
                state.withLock { state in
                    if bytes.isEmpty {
                        switch stream {
                        case .stdout: state.stdout.finish()
                        case .stderr: state.stderr.finish()
                        }
                        state.openStreams -= 1
                    } else {
                        switch stream {
                        case .stdout: state.stdout.append(bytes)
                        case .stderr: state.stderr.append(bytes)
                        }
                    }
                    state.generation += 1
                }
                changed.lock()
                changed.broadcast()
                changed.unlock()
                if bytes.isEmpty { break }
            }
            try? handle.close()
        }
        thread.start()
    }

    func lines(of stream: Stream) -> [String] {
        state.withLock { stream == .stdout ? $0.stdout.lines : $0.stderr.lines }
    }

    /// The URLs of every `sqlited: listening on URL` line seen on stderr so far.
    func listeningURLs() -> [String] {
        lines(of: .stderr).compactMap { line in
            guard let range = line.range(of: ServerProcess.listeningPrefix) else { return nil }
            let url = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            return url.hasPrefix("http://") ? url : nil
        }
    }

    /// Blocks until new output arrives or the timeout passes (whichever first).
    func waitForChange(timeoutSeconds: Double) {
        let generation = state.withLock { $0.generation }
        changed.lock()
        defer { changed.unlock() }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while state.withLock({ $0.generation }) == generation {
            if !changed.wait(until: deadline) { return }
        }
    }

    func waitForEndOfStreams(timeoutSeconds: Double) {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while state.withLock({ $0.openStreams }) > 0 && Date() < deadline {
            waitForChange(timeoutSeconds: 0.05)
        }
    }
}
