import Foundation
import Testing

/// `sqlited --help` and each subcommand's help name the page of `docs/` that explains the command, and the section
/// they name is a heading of that page.
@Suite struct DocsHelpTests {
    /// Each command (its words before `--help`) and the page its help must name.
    static let pages: [(command: [String], page: String)] = [
        ([], "docs/api.md"),
        (["serve"], "docs/configuration.md"),
        (["check-config"], "docs/configuration.md"),
        (["backup"], "docs/running.md"),
        (["migrate"], "docs/running.md"),
        (["hash-token"], "docs/security.md"),
        (["vacuum"], "docs/running.md"),
        (["checkpoint"], "docs/running.md"),
        (["optimize"], "docs/running.md"),
        (["cluster"], "docs/cluster.md"),
        (["cluster", "list"], "docs/cluster.md"),
        (["cluster", "add"], "docs/cluster.md"),
        (["cluster", "remove"], "docs/cluster.md"),
        (["cluster", "transfer"], "docs/cluster.md"),
    ]

    /// The help text of `sqlited <command> --help`, every run of white space made one space (the help is wrapped).
    static func help(_ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = TestPaths.builtProduct(named: "sqlited")
        process.arguments = command + ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Every help names its page; every page a help names exists, with the section it names in parentheses.
    @Test func everyHelp_namesThePageThatExplainsIt() throws {
        let reference = try NSRegularExpression(pattern: #"(docs/[a-z0-9-]+\.md)(?: \(([^)]+)\))?"#)
        for (command, page) in Self.pages {
            let help = try Self.help(command)
            let name = (["sqlited"] + command).joined(separator: " ")
            let references = reference.matches(in: help, range: NSRange(help.startIndex..., in: help))
            let named = references.compactMap { Range($0.range(at: 1), in: help).map { String(help[$0]) } }
            #expect(named.contains(page), "\(name) --help does not name \(page): \(help)")
            for match in references {
                guard let pageRange = Range(match.range(at: 1), in: help) else { continue }
                let docsPage = try DocsPage(name: String(help[pageRange]))
                guard let sectionRange = Range(match.range(at: 2), in: help) else { continue }
                let section = help[sectionRange]
                #expect(
                    docsPage.headings.contains { $0.text.hasPrefix(section) },
                    "\(name) --help names the section \"\(section)\" of \(docsPage.name), which has no such heading"
                )
            }
        }
    }
}
