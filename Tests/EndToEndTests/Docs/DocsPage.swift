import Foundation

/// One Markdown page of the documentation (the README or a page of `docs/`), read the way GitHub renders it closely
/// enough for the documentation tests: its fenced code blocks, its headings with their anchors, and its links.
struct DocsPage: Sendable, CustomStringConvertible {
    /// A fenced code block: its language (`console`, `sh`, `yaml`, … or empty), the 1-based line of its opening fence
    /// and the lines between the fences.
    struct CodeBlock: Sendable {
        var language: String
        var line: Int
        var lines: [String]
    }

    /// A heading outside code blocks: its level (number of `#`), its text and its 1-based line.
    struct Heading: Sendable {
        var level: Int
        var text: String
        var line: Int
    }

    /// A link `[text](target)` outside code: its target as written and its 1-based line.
    struct Link: Sendable {
        var target: String
        var line: Int
    }

    /// The page's path from the package root, e.g. `README.md` or `docs/api.md`.
    let name: String
    let lines: [String]

    var description: String { name }

    /// The page's file.
    var url: URL { TestPaths.packageRoot.appendingPathComponent(name) }

    init(name: String) throws {
        self.name = name
        let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(name), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
    }

    /// The README and every page of `docs/`, in that order (the pages sorted by name).
    static func all() throws -> [DocsPage] {
        let docs = TestPaths.packageRoot.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }
            .sorted()
        return try [DocsPage(name: "README.md")] + names.map { try DocsPage(name: "docs/\($0)") }
    }

    /// The pages, or none when they cannot be read (a test that needs them then fails on its own check).
    static var allOrNone: [DocsPage] { (try? all()) ?? [] }

    /// Whether each line is inside a fenced code block, the fences included.
    private var fenced: [Bool] {
        var inside = false
        var fence = ""
        return lines.map { line in
            let trimmed = line.drop { $0 == " " }
            if !inside, trimmed.hasPrefix("```") {
                inside = true
                fence = String(trimmed.prefix { $0 == "`" })
                return true
            }
            if inside {
                if trimmed.hasPrefix(fence), trimmed.allSatisfy({ $0 == "`" }) { inside = false }
                return true
            }
            return false
        }
    }

    /// Every fenced code block, in order.
    var codeBlocks: [CodeBlock] {
        var blocks: [CodeBlock] = []
        var current: CodeBlock?
        var fence = ""
        for (index, line) in lines.enumerated() {
            let trimmed = line.drop { $0 == " " }
            if var block = current {
                if trimmed.hasPrefix(fence), trimmed.allSatisfy({ $0 == "`" }) {
                    blocks.append(block)
                    current = nil
                } else {
                    block.lines.append(line)
                    current = block
                }
            } else if trimmed.hasPrefix("```") {
                fence = String(trimmed.prefix { $0 == "`" })
                let language = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
                current = CodeBlock(language: language, line: index + 1, lines: [])
            }
        }
        return blocks
    }

    /// Every heading (`#` to `######` at the start of a line, outside code blocks).
    var headings: [Heading] {
        let fenced = self.fenced
        return lines.enumerated().compactMap { index, line in
            guard !fenced[index], line.hasPrefix("#") else { return nil }
            let level = line.prefix { $0 == "#" }.count
            guard level <= 6, line.dropFirst(level).first == " " else { return nil }
            return Heading(
                level: level,
                text: line.dropFirst(level + 1).trimmingCharacters(in: .whitespaces),
                line: index + 1
            )
        }
    }

    /// The anchors GitHub gives the headings, in order (a repeated one gets `-1`, `-2`, …).
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for heading in headings {
            let slug = Self.anchor(of: heading.text)
            if let count = seen[slug] {
                seen[slug] = count + 1
                anchors.insert("\(slug)-\(count)")
            } else {
                seen[slug] = 1
                anchors.insert(slug)
            }
        }
        return anchors
    }

    /// GitHub's anchor for a heading: lower case, every character that is not a letter, a digit, a space, `-` or `_`
    /// dropped (backticks and punctuation included), each space made `-`.
    static func anchor(of heading: String) -> String {
        var slug = ""
        for character in heading.lowercased() {
            if character == " " {
                slug.append("-")
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                slug.append(character)
            }
        }
        return slug
    }

    /// Every link outside code blocks and code spans.
    var links: [Link] {
        let fenced = self.fenced
        var links: [Link] = []
        for (index, line) in lines.enumerated() where !fenced[index] && !line.hasPrefix("    ") {
            let text = Self.removingCodeSpans(line)
            var rest = Substring(text)
            while let open = rest.range(of: "](") {
                let target = rest[open.upperBound...].prefix { $0 != ")" && $0 != " " }
                links.append(Link(target: String(target), line: index + 1))
                rest = rest[open.upperBound...]
            }
        }
        return links
    }

    /// `line` without its code spans (a run of backticks up to the next run of the same length).
    static func removingCodeSpans(_ line: String) -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.firstIndex(of: "`") {
            result += rest[..<start]
            let run = rest[start...].prefix { $0 == "`" }
            let after = rest[run.endIndex...]
            guard let close = after.range(of: String(run)) else {
                result += rest[start...]
                return result
            }
            rest = after[close.upperBound...]
        }
        return result + rest
    }
}
