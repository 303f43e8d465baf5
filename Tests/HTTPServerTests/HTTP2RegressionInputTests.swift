import Foundation
import HTTPServer
import Testing

/// Replays every input saved in `HTTP2Regressions/` (fuzzer findings of `scripts/fuzz.sh h2`, plus hand-written
/// attacks) through the HTTP/2 server session.
@Suite struct HTTP2RegressionInputTests {
    static func inputs() throws -> [URL] {
        let directory = try #require(Bundle.module.url(forResource: "HTTP2Regressions", withExtension: nil))
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "README.txt" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func regressions_arePresent() throws {
        #expect(try Self.inputs().count >= 5)
    }

    /// Every saved input gets the same session outcome however it is split (and does not crash).
    @Test func regressions_giveOneOutcomeHoweverSplit() throws {
        for url in try Self.inputs() {
            let outcomes = HTTP2Fuzzing.outcomes(Array(try Data(contentsOf: url)))
            for label in ["raw: ", "preface: "] {
                let group = Set(outcomes.filter { $0.hasPrefix(label) })
                #expect(group.count == 1, "\(url.lastPathComponent): \(group)")
            }
        }
    }

    /// The hand-written inputs end as they must after the preface.
    @Test func handwrittenAttacks_areCaught() throws {
        func outcome(_ name: String) throws -> String {
            let directory = try #require(Bundle.module.url(forResource: "HTTP2Regressions", withExtension: nil))
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
            return try #require(HTTP2Fuzzing.outcomes(bytes).first { $0.hasPrefix("preface: ") })
        }
        #expect(try outcome("handwritten-rapid-reset").contains("flood(streams reset before their response"))
        #expect(try outcome("handwritten-settings-flood").contains("flood("))
        #expect(try outcome("handwritten-continuation-flood").contains("flood(CONTINUATION frames)"))
        #expect(try outcome("handwritten-big-header").contains("reject(1 431)"))
        #expect(try outcome("handwritten-body-past-limit").contains("reject(1 413)"))
        // Blocks repeated (whole), changed (a literal :path), with a body and trailers, cut short, and repeated again:
        // each stream gets its own target, however the bytes are split.
        #expect(
            try outcome("handwritten-repeated-header-blocks").hasPrefix(
                "preface: request(1 POST /q body=0) request(3 POST /q body=0) request(5 POST /r body=0) "
                    + "request(7 POST /r body=2) request(9 POST /r body=0) request(11 POST /r body=0) → open"
            )
        )
    }
}
