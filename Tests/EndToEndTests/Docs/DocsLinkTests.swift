import Foundation
import Testing

/// The relative links of the README and of `docs/*.md` lead somewhere: to a file or folder of the repository and, for
/// a page, to one of its headings (GitHub's anchors).
@Suite struct DocsLinkTests {
    /// What is wrong with a link of `page`, or nil when it resolves. Links with a scheme (`https:`, `mailto:`) are
    /// not followed; a link that leaves the repository (`../shared/API.md`) is followed only when the folder it
    /// enters beside the repository exists, as the tests of the shared corpus do.
    static func problem(with target: String, in page: DocsPage, anchorsOf: (String) -> Set<String>?) -> String? {
        if target.contains("://") || target.hasPrefix("mailto:") { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : nil
        let root = TestPaths.packageRoot.standardizedFileURL
        let pageFolder = page.url.deletingLastPathComponent()
        let file =
            path.isEmpty ? page.url.standardizedFileURL : pageFolder.appendingPathComponent(path).standardizedFileURL
        if !file.path.hasPrefix(root.path + "/") {
            let outside = file.path.dropFirst(root.deletingLastPathComponent().path.count + 1)
            let entered = outside.split(separator: "/").first.map(String.init) ?? ""
            let folder = root.deletingLastPathComponent().appendingPathComponent(entered)
            guard FileManager.default.fileExists(atPath: folder.path) else { return nil }
        }
        guard FileManager.default.fileExists(atPath: file.path) else { return "no file \(file.path)" }
        guard let fragment, file.pathExtension == "md" else { return nil }
        let relative = String(file.path.dropFirst(root.path.count + 1))
        guard let anchors = anchorsOf(relative) else { return nil }
        return anchors.contains(fragment) ? nil : "no heading with the anchor #\(fragment) in \(relative)"
    }

    /// Every relative link of every page resolves; a broken one is reported with its page and line.
    @Test(arguments: DocsPage.allOrNone)
    func links_resolve(_ page: DocsPage) throws {
        let pages = try DocsPage.all()
        let anchors = Dictionary(uniqueKeysWithValues: pages.map { ($0.name, $0.anchors) })
        for link in page.links {
            let problem = Self.problem(with: link.target, in: page) { name in
                anchors[name] ?? (try? DocsPage(name: name))?.anchors
            }
            #expect(problem == nil, "\(page.name):\(link.line): broken link (\(link.target)): \(problem ?? "")")
        }
    }

    /// There are pages, and they link to each other (a parser that found no link would pass the test above).
    @Test func pages_haveLinks() throws {
        let pages = try DocsPage.all()
        #expect(pages.count >= 10, "\(pages.map(\.name))")
        for page in pages {
            #expect(!page.links.isEmpty, "\(page.name) has no link")
        }
    }

    /// GitHub's anchors: lower case, punctuation and backticks dropped, spaces made hyphens.
    @Test func anchors_followGitHubsRules() {
        #expect(DocsPage.anchor(of: "HTTP/2 (h2c)") == "http2-h2c")
        #expect(DocsPage.anchor(of: "SQLiteEngine — the library") == "sqliteengine--the-library")
        #expect(
            DocsPage.anchor(of: "Managing the members: `sqlited cluster`") == "managing-the-members-sqlited-cluster"
        )
        #expect(
            DocsPage.anchor(of: "Request log at the defaults, pinned (issue #12)")
                == "request-log-at-the-defaults-pinned-issue-12"
        )
        #expect(DocsPage.anchor(of: "group_commit and max_rows") == "group_commit-and-max_rows")
    }

    /// A link to a missing file or heading is reported, and one to a heading that exists is not.
    @Test func brokenLinks_areReported() throws {
        let readme = try DocsPage(name: "README.md")
        let anchorsOf: (String) -> Set<String>? = { (try? DocsPage(name: $0))?.anchors }
        #expect(Self.problem(with: "docs/api.md#the-tables-api", in: readme, anchorsOf: anchorsOf) == nil)
        #expect(Self.problem(with: "#a-tour-with-curl", in: readme, anchorsOf: anchorsOf) == nil)
        #expect(Self.problem(with: "docs/api.md#no-such-heading", in: readme, anchorsOf: anchorsOf) != nil)
        #expect(Self.problem(with: "docs/nothing.md", in: readme, anchorsOf: anchorsOf) != nil)
        #expect(Self.problem(with: "#http2-h2c", in: readme, anchorsOf: anchorsOf) != nil)
        #expect(Self.problem(with: "https://example.com/#x", in: readme, anchorsOf: anchorsOf) == nil)
    }
}
