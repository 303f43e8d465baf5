import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Replays the commands of one `console` block as a terminal would run them, in a temporary directory of its own:
///
/// - `curl -s [-X METHOD] [-H 'Name: value'] [--json BODY | -d BODY] URL` sends the request to a `sqlited` started for
///   the block (on a free port, at its first `curl`; `localhost:8080` and `127.0.0.1:8080` stand for it) and prints
///   the response body, as `curl -s` does;
/// - `sqlited ARGUMENTS` runs the built binary with the directory as its working directory and prints what it writes
///   to stdout and stderr (one pipe for both, as a terminal shows them). An absolute path among the arguments is
///   taken inside the directory (`/etc/sqlited/sqlited.yaml` is `<directory>/etc/sqlited/sqlited.yaml`) and the
///   directory is taken out of the output again;
/// - `read -rs NAME` sets `NAME` to the input the block's ``Setup`` says was typed; `printf FORMAT ARGUMENTS`,
///   `echo ARGUMENTS` and `grep WORD` do what the shell's do (`grep` with a fixed word), and `$?` is the last status.
///
/// Values that differ at each run are mapped as `ReadmeTourTests` maps paging cursors: a value the page shows where
/// the run printed another (a cursor after `"next":` or `"prev":`, a token `hash-token --generate` made and its hash)
/// stands for the run's value in the output and in later commands.
final class ConsoleSession {
    /// What a block needs that its transcript does not show.
    struct Setup: Sendable {
        /// Files to create before the first command, by the path the page uses.
        var files: [String: FileContent] = [:]
        /// Arguments for the block's server (besides its database, host and free port); paths as the page shows them.
        var serverArguments: [String] = []
        /// What was typed at `read -rs NAME`, by name.
        var typed: [String: String] = [:]
    }

    /// Where a file's content comes from.
    enum FileContent: Sendable {
        /// This text.
        case text(String)
        /// The nearest `yaml` code block after the transcript in its page (so the page shows the file).
        case yamlBlockAfter
        /// The nearest `yaml` code block before the transcript in its page.
        case yamlBlockBefore
    }

    /// Why a command could not be replayed (as opposed to printing something else than the page shows).
    struct ReplayError: Error, CustomStringConvertible {
        var description: String
    }

    /// Values that differ at every run: each pattern's groups, in the page's output and in the run's at the same
    /// place, are one value.
    static let perRunValues: [NSRegularExpression] = [
        #""(?:next|prev)":"([^"]+)""#,
        #"token \(shown once, store it now\): ([0-9a-f]{64})\n([0-9a-f]{64})"#,
    ].map { try! NSRegularExpression(pattern: $0) }

    let directory: TemporaryDirectory
    private let setup: Setup
    private var server: ServerProcess?
    private var client: HTTPTestClient?
    private var variables: [String: String] = [:]
    private var lastStatus: Int32 = 0
    /// Values the page shows → the run's values.
    private(set) var mapped: [String: String] = [:]

    init(transcript: ConsoleTranscript, setup: Setup) throws {
        self.setup = setup
        directory = try TemporaryDirectory(prefix: "sqlited-docs")
        for (path, content) in setup.files {
            let url = self.url(forPagePath: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(try Self.text(of: content, for: transcript).utf8).write(to: url)
        }
    }

    deinit {
        _ = try? server?.stop()
    }

    /// Runs one command line and returns its output, lines of the run's values replaced by the page's where they
    /// match (see ``perRunValues``).
    func run(_ command: ConsoleTranscript.Command) throws -> [String] {
        var commandLine = command.text
        for (shown, actual) in mapped { commandLine = commandLine.replacingOccurrences(of: shown, with: actual) }
        let line = try ShellLine(commandLine)
        var output = ""
        for pipeline in line.pipelines {
            var input: String?
            var status: Int32 = 0
            for (index, words) in pipeline.enumerated() {
                let arguments = words.map(expand)
                guard let name = arguments.first else { throw ReplayError(description: "an empty command") }
                let result = try runSimpleCommand(
                    name,
                    Array(arguments.dropFirst()),
                    input: input,
                    isLast: index == pipeline.count - 1
                )
                output += result.terminal
                (input, status) = (result.output, result.status)
            }
            lastStatus = status
            output += input ?? ""
            if status != 0 { break }
        }
        let expected = command.expected.joined(separator: "\n")
        for pattern in Self.perRunValues {
            let shownMatches = pattern.matches(in: expected, range: NSRange(expected.startIndex..., in: expected))
            let runMatches = pattern.matches(in: output, range: NSRange(output.startIndex..., in: output))
            for (shown, run) in zip(shownMatches, runMatches) {
                for group in 1..<pattern.numberOfCaptureGroups + 1 {
                    guard let shownRange = Range(shown.range(at: group), in: expected),
                        let runRange = Range(run.range(at: group), in: output)
                    else { continue }
                    mapped[String(expected[shownRange])] = String(output[runRange])
                }
            }
        }
        for (shown, actual) in mapped { output = output.replacingOccurrences(of: actual, with: shown) }
        // A terminal shows a CSV record's CRLF as a line end, as the page does (and "\r\n" is one Character, which
        // splitting at "\n" would not cut).
        var lines = output.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    /// `$NAME` and `$?` expanded.
    private func expand(_ word: ShellLine.Word) -> String {
        word.map { part in
            switch part {
            case .text(let text): text
            case .variable("?"): String(lastStatus)
            case .variable(let name): variables[name] ?? ""
            }
        }.joined()
    }

    /// Runs one simple command with `input` on its standard input; returns its output, what it wrote straight to the
    /// terminal (its stderr when it is not the last command of a pipeline) and its status.
    private func runSimpleCommand(
        _ name: String,
        _ arguments: [String],
        input: String?,
        isLast: Bool
    ) throws -> (output: String, terminal: String, status: Int32) {
        if name == "sqlited" { return try sqlited(arguments, input: input, mergingErrors: isLast) }
        let (output, status) = try runBuiltIn(name, arguments, input: input)
        return (output, "", status)
    }

    /// `curl`, `read`, `printf`, `echo` and `grep`: their output and status.
    private func runBuiltIn(_ name: String, _ arguments: [String], input: String?) throws -> (String, Int32) {
        switch name {
        case "curl":
            return (try curl(arguments), 0)
        case "read":
            guard let variable = arguments.last(where: { !$0.hasPrefix("-") }), let typed = setup.typed[variable] else {
                throw ReplayError(description: "`read` needs what was typed (Setup.typed)")
            }
            variables[variable] = typed
            return ("", 0)
        case "printf":
            guard let format = arguments.first else { throw ReplayError(description: "printf without a format") }
            let values = arguments.dropFirst()
            let expanded = format.replacingOccurrences(of: "\\n", with: "\n")
            guard expanded.components(separatedBy: "%").count <= 2 else {
                throw ReplayError(description: "printf formats other than one %s are not replayed")
            }
            let output =
                values.isEmpty
                ? expanded.replacingOccurrences(of: "%s", with: "")
                : values.map { expanded.replacingOccurrences(of: "%s", with: $0) }.joined()
            return (output, 0)
        case "echo":
            return (arguments.joined(separator: " ") + "\n", 0)
        case "grep":
            guard arguments.count == 1, let word = arguments.first, !word.hasPrefix("-") else {
                throw ReplayError(description: "grep with options is not replayed")
            }
            let lines = (input ?? "").components(separatedBy: "\n").filter { $0.contains(word) }
            return (lines.map { $0 + "\n" }.joined(), lines.isEmpty ? 1 : 0)
        default:
            throw ReplayError(description: "`\(name)` is not a command the replay knows")
        }
    }

    /// The file a path of the page stands for: absolute paths inside the directory, relative ones from it.
    private func url(forPagePath path: String) -> URL {
        path.hasPrefix("/")
            ? URL(fileURLWithPath: directory.url.path + path) : directory.url.appendingPathComponent(path)
    }

    /// `curl -s …` against the block's server; the response body.
    private func curl(_ arguments: [String]) throws -> String {
        var method: String?
        var headers: [(String, String)] = []
        var body: String?
        var target: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-s":
                continue
            case "-X":
                method = rest.popFirst()
            case "-H":
                guard let header = rest.popFirst(), let colon = header.firstIndex(of: ":") else {
                    throw ReplayError(description: "curl -H needs 'Name: value'")
                }
                headers.append((String(header[..<colon]), header[header.index(after: colon)...].trimmingSpaces()))
            case "--json":
                body = rest.popFirst()
                headers.append(("Content-Type", "application/json"))
            case "-d":
                body = rest.popFirst()
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            case let option where option.hasPrefix("-"):
                throw ReplayError(description: "curl \(option) is not replayed")
            default:
                target = argument
            }
        }
        guard var url = target else { throw ReplayError(description: "curl without a URL") }
        if url.hasPrefix("http://") { url.removeFirst("http://".count) }
        guard let authority = ["localhost:8080", "127.0.0.1:8080"].first(where: { url.hasPrefix($0) }) else {
            throw ReplayError(description: "curl to \(url): only localhost:8080 stands for the block's server")
        }
        let path = String(url.dropFirst(authority.count))
        let response = try serverClient().request(
            method: method ?? (body == nil ? "GET" : "POST"),
            path: path.isEmpty ? "/" : path,
            headers: headers,
            body: body.map { Array($0.utf8) }
        )
        return response.bodyText
    }

    /// A client of the block's server, started at the first call.
    private func serverClient() throws -> HTTPTestClient {
        if let client { return client }
        let server = try ServerProcess.startSqlited(
            directory: directory.url,
            extraArguments: setup.serverArguments.map { $0.hasPrefix("/") ? url(forPagePath: $0).path : $0 }
        )
        self.server = server
        let client = try server.makeClient()
        self.client = client
        return client
    }

    /// Runs the built `sqlited` in the directory: what it wrote to stdout (and stderr, in the order written, when
    /// `mergingErrors`), what it wrote to stderr otherwise, and its exit status.
    private func sqlited(
        _ arguments: [String],
        input: String?,
        mergingErrors: Bool
    ) throws -> (output: String, terminal: String, status: Int32) {
        let process = Process()
        process.executableURL = TestPaths.builtProduct(named: "sqlited")
        process.arguments = arguments.map { $0.hasPrefix("/") ? url(forPagePath: $0).path : $0 }
        process.currentDirectoryURL = directory.url
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SQLITED_") }
        let output = Pipe()
        process.standardOutput = output
        let errorsFile = directory.url.appendingPathComponent(".stderr-\(UUID().uuidString)")
        var errorsHandle: FileHandle?
        if mergingErrors {
            process.standardError = output
        } else {
            _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
            errorsHandle = try FileHandle(forWritingTo: errorsFile)
            process.standardError = errorsHandle
        }
        defer { try? errorsHandle?.close() }
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: timer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        guard process.terminationReason == .exit else {
            throw ReplayError(description: "sqlited \(arguments.joined(separator: " ")) did not end within 30 s")
        }
        let errors = mergingErrors ? Data() : try Data(contentsOf: errorsFile)
        try? FileManager.default.removeItem(at: errorsFile)
        func text(_ data: Data) -> String {
            String(decoding: data, as: UTF8.self).replacingOccurrences(of: directory.url.path, with: "")
        }
        return (text(data), text(errors), process.terminationStatus)
    }

    /// The text of a file the setup names.
    private static func text(of content: FileContent, for transcript: ConsoleTranscript) throws -> String {
        switch content {
        case .text(let text):
            return text
        case .yamlBlockAfter, .yamlBlockBefore:
            let page = try DocsPage(name: transcript.page)
            let yaml = page.codeBlocks.filter { $0.language == "yaml" }
            let block =
                if case .yamlBlockAfter = content {
                    yaml.first { $0.line > transcript.line }
                } else {
                    yaml.last { $0.line < transcript.line }
                }
            guard let block else { throw ReplayError(description: "no yaml block beside \(transcript)") }
            return block.lines.joined(separator: "\n") + "\n"
        }
    }
}
