import Foundation
import Testing

/// The README is a front page (issue #32): the two commands first, then what sqlited is, the tour, the features, the
/// headline figures and a map of `docs/`, within 250 lines; nothing the README had before the split is lost.
@Suite struct DocsHomeTests {
    /// Every `##` and `###` heading of the README before it was split into `docs/` (commit 2ff66d4), in order.
    static let headingsBeforeTheSplit = [
        "A tour with curl",
        "The API in short",
        "Choices where the contract is silent",
        "SQL policy",
        "The Tables API",
        "Group commit",
        "Running it as a service",
        "Configuration",
        "systemd",
        "Observability",
        "Backups",
        "Maintenance",
        "Migrations",
        "Security",
        "SQLiteEngine — the library",
        "HTTPServer — the HTTP/1.1 layer",
        "HTTP/2 (h2c)",
        "Cluster mode (dqlite)",
        "Running a three-node cluster",
        "What works (and how)",
        "Managing the members: `sqlited cluster`",
        "Failover under 32 writers (tested, and `scripts/cluster-failover.sh`)",
        "A client nobody here wrote: the `dqlite` shell",
        "Benchmark: three nodes vs one",
        "Differences from the local backend",
        "Not done yet",
        "The layers under it",
        "Testing",
        "Benchmarks",
        "Engine: raw C vs SQLiteEngine vs GRDB",
        "Request log at the defaults, pinned (issue #12)",
        "HTTP: sqlited vs a minimal C epoll server and nginx",
        "Layout",
    ]

    /// Every heading of the old README is still a heading of the README or of a page of `docs/`.
    @Test func everyHeadingBeforeTheSplit_isStillAHeading() throws {
        let headings = Set(try DocsPage.all().flatMap { $0.headings.map(\.text) })
        for heading in Self.headingsBeforeTheSplit {
            #expect(headings.contains(heading), "no page has the heading \"\(heading)\"")
        }
    }

    /// The README has at most 250 lines.
    @Test func readme_isAtMost250Lines() throws {
        let readme = try DocsPage(name: "README.md")
        #expect(readme.lines.count <= 250, "README.md has \(readme.lines.count) lines")
    }

    /// The README starts with its title and the two commands that work on a fresh machine: serve, and test.
    @Test func readme_startsWithTheTwoCommands() throws {
        let readme = try DocsPage(name: "README.md")
        #expect(
            Array(readme.lines.prefix(6)) == [
                "# sqlited",
                "",
                "```sh",
                "swift run sqlited        # serve ./data/sqlited.sqlite on http://127.0.0.1:8080 (created on first run)",
                "make test                # build everything and run the whole test suite",
                "```",
            ]
        )
    }

    /// After the commands: what sqlited is, the tour (the README's first `console` block), the features, the
    /// headline figures with a link to the benchmarks, the HTTP server's folders and state machine, and the map of
    /// `docs/`, in that order.
    @Test func readme_hasItsSectionsInOrder() throws {
        let readme = try DocsPage(name: "README.md")
        let sections = readme.headings.filter { $0.level == 2 }.map(\.text)
        #expect(
            sections == ["A tour with curl", "Features", "Headline figures", "HTTPServer at a glance", "Documentation"]
        )
        let tour = try #require(readme.headings.first { $0.text == "A tour with curl" })
        let firstConsole = try #require(readme.codeBlocks.first { $0.language == "console" })
        #expect(firstConsole.line > tour.line)
        let figures = try #require(readme.headings.first { $0.text == "Headline figures" })
        let server = try #require(readme.headings.first { $0.text == "HTTPServer at a glance" })
        let figureLinks = readme.links.filter { $0.line > figures.line && $0.line < server.line }
        #expect(figureLinks.contains { $0.target == "docs/performance.md" })
        let intro = readme.lines[6..<tour.line - 1].joined(separator: "\n")
        #expect(intro.contains("sqlited serves one SQLite database over HTTP/JSON"))
    }

    /// The README links every page of `docs/`, and each page starts with its title and one paragraph saying what it
    /// is for.
    @Test func everyPage_isLinkedFromTheReadmeAndSaysWhatItIsFor() throws {
        let pages = try DocsPage.all()
        let readme = try #require(pages.first)
        let linked = Set(readme.links.map { $0.target.split(separator: "#").first.map(String.init) ?? "" })
        for page in pages.dropFirst() {
            #expect(linked.contains(page.name), "the README does not link \(page.name)")
            #expect(page.lines.first?.hasPrefix("# ") == true, "\(page.name) does not start with a title")
            #expect(page.lines.count > 3 && page.lines[1].isEmpty, "\(page.name)")
            let opening = page.lines.dropFirst(2).first ?? ""
            let isProse = !opening.isEmpty && !["#", "```", "|", "- ", "    "].contains { opening.hasPrefix($0) }
            #expect(isProse, "\(page.name) does not open with a paragraph: \(opening)")
        }
    }
}
