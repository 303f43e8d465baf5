import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `sqlited` child process for the daemon tests, spawned with `posix_spawn` so that a test can hand it a
/// listening socket as descriptor 3 (socket activation), with `LISTEN_PID` set to the child's own pid as systemd
/// does. Its stderr goes to a file that the test reads.
///
/// Not `Sendable`: one test owns it. `deinit` kills a child still running.
final class DaemonProcess {
    let pid: pid_t
    let stderrURL: URL
    private var status: ServerProcess.ExitStatus?

    enum DaemonProcessError: Error, CustomStringConvertible {
        case spawn(Int32)
        case noListener(stderr: String)
        case didNotExit

        var description: String {
            switch self {
            case .spawn(let code): "posix_spawn failed: \(String(cString: strerror(code)))"
            case .noListener(let stderr): "no listener announced; stderr:\n\(stderr)"
            case .didNotExit: "the daemon did not exit in time"
            }
        }
    }

    /// Starts `sqlited arguments…` in `directory` with `environment` (plus PATH).
    ///
    /// - Parameters:
    ///   - passingListener: A listening socket to pass as descriptor 3, with `LISTEN_PID` set to the child's pid.
    ///   - blockedSignals: Signals the child starts with blocked (as a parent that blocked them leaves them).
    init(
        arguments: [String],
        environment: [String: String],
        directory: URL,
        passingListener: Int32? = nil,
        blockedSignals: [Int32] = []
    ) throws {
        let executable = TestPaths.builtProduct(named: "sqlited").path
        stderrURL = directory.appendingPathComponent("stderr-\(UUID().uuidString).log")
        var argv = [executable] + arguments
        if passingListener != nil {
            // The shell's pid is the daemon's after `exec`, so LISTEN_PID names the daemon, as systemd's would.
            argv = ["/bin/sh", "-c", "export LISTEN_PID=$$; exec \"$0\" \"$@\""] + argv
        }
        var env = environment
        env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
        let envp = env.map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let passingListener {
            posix_spawn_file_actions_adddup2(&actions, passingListener, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Test threads block and ignore signals; the daemon must start with the defaults to see SIGTERM and SIGHUP.
        var empty = sigset_t()
        sigemptyset(&empty)
        for number in blockedSignals { sigaddset(&empty, number) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let result = Self.withCStrings(argv) { argvPointer in
            Self.withCStrings(envp) { envPointer in
                posix_spawn(&pid, argv[0], &actions, &attributes, argvPointer, envPointer)
            }
        }
        guard result == 0 else { throw DaemonProcessError.spawn(result) }
        self.pid = pid
    }

    deinit {
        if status == nil {
            Glibc.kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }

    /// Everything written to stderr so far.
    var stderr: String {
        (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
    }

    /// Waits for the `sqlited: listening on URL` lines and returns the URLs.
    func waitForListeners(count: Int = 1, timeoutSeconds: Double = 30) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let urls = stderr.split(separator: "\n")
                .filter { $0.hasPrefix(ServerProcess.listeningPrefix) }
                .map { String($0.dropFirst(ServerProcess.listeningPrefix.count)) }
            if urls.count >= count { return urls }
            if try exitStatus() != nil { break }
            usleep(20_000)
        }
        throw DaemonProcessError.noListener(stderr: stderr)
    }

    func send(_ signal: Int32) {
        Glibc.kill(pid, signal)
    }

    /// The exit status if the process has ended (without blocking).
    func exitStatus() throws -> ServerProcess.ExitStatus? {
        if let status { return status }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        guard result == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let signal = raw & 0x7F
        let ended: ServerProcess.ExitStatus = signal == 0 ? .exited((raw >> 8) & 0xFF) : .signaled(signal)
        status = ended
        return ended
    }

    /// Waits for the process to end.
    func waitForExit(timeoutSeconds: Double = 60) throws -> ServerProcess.ExitStatus {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let status = try exitStatus() { return status }
            usleep(20_000)
        }
        throw DaemonProcessError.didNotExit
    }

    private static func withCStrings<R>(
        _ strings: [String],
        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension DaemonProcess {
    /// Starts the daemon with `NOTIFY_SOCKET` set to a socket of the test's own and waits for its `READY=1`; the
    /// socket is returned for the test to wait for later messages (a reload's `RELOADING=1`, `READY=1`).
    static func startedReady(
        arguments: [String],
        in directory: TemporaryDirectory
    ) throws -> (daemon: DaemonProcess, notify: NotifySocket) {
        let notify = try NotifySocket(path: directory.path("notify").path)
        let daemon = try DaemonProcess(
            arguments: arguments,
            environment: ["NOTIFY_SOCKET": notify.address],
            directory: directory.url
        )
        try notify.waitFor("READY=1")
        return (daemon, notify)
    }
}
