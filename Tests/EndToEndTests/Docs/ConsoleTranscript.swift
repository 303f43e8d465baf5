import Foundation
import Testing

/// A `console` code block read as a terminal transcript: each line starting with `$ ` is a command, and the lines up
/// to the next command (blank lines at the end left out) are the output it printed.
struct ConsoleTranscript: Sendable, CustomTestStringConvertible {
    struct Command: Sendable {
        /// The command line without its `$ `.
        var text: String
        /// The 1-based line of the command in its page.
        var line: Int
        /// What the page shows the command printing, line by line.
        var expected: [String]
    }

    /// The page the block is in (`docs/api.md`) and the line of its opening fence.
    var page: String
    var line: Int
    var commands: [Command]
    /// Lines of the block before its first command (there should be none).
    var strayLines: [String]

    var testDescription: String { "\(page):\(line)" }

    /// Where a command is, for messages: `docs/api.md:42`.
    func location(of command: Command) -> String { "\(page):\(command.line)" }

    init(page: String, block: DocsPage.CodeBlock) {
        self.page = page
        self.line = block.line
        var commands: [Command] = []
        var stray: [String] = []
        for (offset, text) in block.lines.enumerated() {
            if text.hasPrefix("$ ") {
                commands.append(Command(text: String(text.dropFirst(2)), line: block.line + 1 + offset, expected: []))
            } else if commands.isEmpty {
                if !text.isEmpty { stray.append(text) }
            } else {
                commands[commands.count - 1].expected.append(text)
            }
        }
        for index in commands.indices {
            while commands[index].expected.last == "" { commands[index].expected.removeLast() }
        }
        self.commands = commands
        self.strayLines = stray
    }

    /// Every `console` block of the README and of `docs/*.md`.
    static func all() throws -> [ConsoleTranscript] {
        try DocsPage.all().flatMap { page in
            page.codeBlocks.filter { $0.language == "console" }.map { ConsoleTranscript(page: page.name, block: $0) }
        }
    }

    /// The transcripts, or none when the pages cannot be read (a test that counts them then fails).
    static var allOrNone: [ConsoleTranscript] { (try? all()) ?? [] }
}

/// A command line split the way a POSIX shell splits it, for the few shell forms the pages use: words with single
/// and double quotes and backslashes, `$NAME` and `$?` expanded when the command runs, `|`, `&&` and `#` comments.
struct ShellLine: Sendable {
    /// A piece of a word: text as written, or a variable to expand.
    enum Part: Sendable, Equatable {
        case text(String)
        case variable(String)
    }

    typealias Word = [Part]

    /// Simple commands joined by `|`.
    typealias Pipeline = [[Word]]

    /// Pipelines joined by `&&`.
    var pipelines: [Pipeline]

    enum ParseError: Error, CustomStringConvertible {
        case unterminatedQuote
        case unsupported(String)

        var description: String {
            switch self {
            case .unterminatedQuote: "a quote is not closed"
            case .unsupported(let what): "the shell form \(what) is not replayed"
            }
        }
    }

    init(_ text: String) throws(ParseError) {
        var pipelines: [Pipeline] = [[[]]]
        var word: Word = []
        var inWord = false
        var characters = Substring(text)

        func appendText(_ string: String) {
            if case .text(let previous) = word.last {
                word[word.count - 1] = .text(previous + string)
            } else {
                word.append(.text(string))
            }
            inWord = true
        }
        func endWord() {
            if inWord { pipelines[pipelines.count - 1][pipelines[pipelines.count - 1].count - 1].append(word) }
            word = []
            inWord = false
        }
        func readVariable() -> Part? {
            if characters.first == "?" {
                characters = characters.dropFirst()
                return .variable("?")
            }
            let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            guard !name.isEmpty else { return nil }
            characters = characters.dropFirst(name.count)
            return .variable(String(name))
        }

        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case " ", "\t":
                endWord()
            case "#" where !inWord:
                characters = ""
            case "'":
                guard let close = characters.firstIndex(of: "'") else { throw .unterminatedQuote }
                appendText(String(characters[..<close]))
                characters = characters[characters.index(after: close)...]
            case "\"":
                inWord = true
                while true {
                    guard let next = characters.first else { throw .unterminatedQuote }
                    characters = characters.dropFirst()
                    if next == "\"" { break }
                    if next == "\\", let escaped = characters.first, "\"\\$`".contains(escaped) {
                        characters = characters.dropFirst()
                        appendText(String(escaped))
                    } else if next == "$", let variable = readVariable() {
                        word.append(variable)
                    } else {
                        appendText(String(next))
                    }
                }
            case "\\":
                guard let escaped = characters.first else { throw .unsupported("a trailing backslash") }
                characters = characters.dropFirst()
                appendText(String(escaped))
            case "$":
                if let variable = readVariable() {
                    word.append(variable)
                    inWord = true
                } else {
                    appendText("$")
                }
            case "|":
                guard characters.first != "|" else { throw .unsupported("||") }
                endWord()
                pipelines[pipelines.count - 1].append([])
            case "&":
                guard characters.first == "&" else { throw .unsupported("& (a background job)") }
                characters = characters.dropFirst()
                endWord()
                pipelines.append([[]])
            case ";", "<", ">", "(", ")", "`":
                throw .unsupported(String(character))
            default:
                appendText(String(character))
            }
        }
        endWord()
        self.pipelines = pipelines
    }
}
