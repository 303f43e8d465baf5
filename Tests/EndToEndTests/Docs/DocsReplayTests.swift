import Foundation
import Testing

/// Every `console` block of the README and of `docs/*.md` is a transcript of the real binary: replayed command by
/// command (``ConsoleSession``), each command prints exactly what the page shows, errors included.
@Suite struct DocsReplayTests {
    /// What a block needs that its transcript does not show, by `page: first command`.
    static let setups: [String: ConsoleSession.Setup] = [
        // The file whose wrong type the page shows is the yaml block just above the transcript.
        "docs/configuration.md: sqlited --config /etc/sqlited/sqlited.yaml": ConsoleSession.Setup(
            files: ["/etc/sqlited/sqlited.yaml": .yamlBlockBefore]
        ),
        // The tokens of the yaml block below the transcript; `read -rs TOKEN` is given the token whose hash the page
        // shows (typed, so a terminal shows nothing of it).
        "docs/security.md: sqlited hash-token --generate": ConsoleSession.Setup(
            files: ["/etc/sqlited/sqlited.yaml": .yamlBlockAfter],
            serverArguments: ["--config", "/etc/sqlited/sqlited.yaml"],
            typed: ["TOKEN": "d8fe83f76f66a4d0036ed47762029fc5c983a908a525218897510ad22ec94b70"]
        ),
    ]

    /// The key of ``setups`` for a transcript.
    static func key(of transcript: ConsoleTranscript) -> String {
        "\(transcript.page): \(transcript.commands.first?.text ?? "")"
    }

    /// The pages that show output have transcripts, each starts with a command, and every setup belongs to one.
    @Test func transcripts_areFoundAndWellFormed() throws {
        let transcripts = try ConsoleTranscript.all()
        let pages = Set(transcripts.map(\.page))
        let expectedPages = [
            "README.md", "docs/api.md", "docs/configuration.md", "docs/running.md", "docs/security.md",
        ]
        #expect(pages.isSuperset(of: expectedPages), "pages with transcripts: \(pages.sorted())")
        for transcript in transcripts {
            #expect(!transcript.commands.isEmpty, "\(transcript): a console block without a `$ ` command")
            #expect(transcript.strayLines.isEmpty, "\(transcript): lines before its first command")
        }
        let keys = Set(transcripts.map(Self.key(of:)))
        for key in Self.setups.keys {
            #expect(keys.contains(key), "a setup for no block: \(key)")
        }
    }

    /// Each block, replayed on a fresh server and in a fresh directory, prints what its page shows.
    @Test(arguments: ConsoleTranscript.allOrNone)
    func transcript_printsWhatThePageShows(_ transcript: ConsoleTranscript) throws {
        let session = try ConsoleSession(
            transcript: transcript,
            setup: Self.setups[Self.key(of: transcript)] ?? .init()
        )
        for command in transcript.commands {
            let actual: [String]
            do {
                actual = try session.run(command)
            } catch {
                Issue.record("\(transcript.location(of: command)): `\(command.text)` could not be replayed: \(error)")
                return
            }
            #expect(actual == command.expected, "\(transcript.location(of: command)): `\(command.text)`")
        }
    }

    /// A token that `hash-token --generate` printed in a page hashes to the hash printed beside it (the replay maps
    /// both to the run's own, so it would not notice a pair that does not belong together).
    @Test func generatedTokensShown_hashToTheHashesShown() throws {
        let pattern = ConsoleSession.perRunValues[1]
        var pairs = 0
        for transcript in try ConsoleTranscript.all() {
            for command in transcript.commands {
                let shown = command.expected.joined(separator: "\n")
                for match in pattern.matches(in: shown, range: NSRange(shown.startIndex..., in: shown)) {
                    guard let token = Range(match.range(at: 1), in: shown),
                        let hash = Range(match.range(at: 2), in: shown)
                    else { continue }
                    pairs += 1
                    let session = try ConsoleSession(transcript: transcript, setup: .init())
                    let check = ConsoleTranscript.Command(
                        text: "printf '%s\\n' \(shown[token]) | sqlited hash-token",
                        line: command.line,
                        expected: []
                    )
                    #expect(try session.run(check) == [String(shown[hash])], "\(transcript.location(of: command))")
                }
            }
        }
        #expect(pairs > 0)
    }
}
