import Foundation
import HTTPServer
import Testing

/// Replays every input saved in `Regressions/` (fuzzer findings, plus hand-written tricky inputs).
@Suite struct RegressionInputTests {
    static func inputs() throws -> [URL] {
        let directory = try #require(Bundle.module.url(forResource: "Regressions", withExtension: nil))
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "README.txt" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The directory holds inputs to replay.
    @Test func regressions_arePresent() throws {
        #expect(try !Self.inputs().isEmpty)
    }

    /// Every saved input gets the same parser outcome however it is split (and does not crash).
    @Test func regressions_parseConsistently() throws {
        for url in try Self.inputs() {
            let outcomes = HTTPParserFuzzing.outcomes(Array(try Data(contentsOf: url)))
            let defaults = Set(outcomes.filter { $0.hasPrefix("default: ") })
            let tight = Set(outcomes.filter { $0.hasPrefix("tight: ") })
            #expect(defaults.count == 1, "\(url.lastPathComponent): \(defaults)")
            #expect(tight.count == 1, "\(url.lastPathComponent): \(tight)")
        }
    }
}
