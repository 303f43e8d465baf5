import Foundation
import SQLiteService
import Testing

/// Replays the JSON request fuzzer's findings and seed corpus through the decoder's properties.
@Suite struct JSONRequestRegressionTests {
    static let securityDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func files(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "README.txt" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The regressions directory holds inputs to replay.
    @Test func regressions_arePresent() throws {
        #expect(try Self.files(in: Self.securityDirectory.appendingPathComponent("Regressions")).count >= 5)
    }

    /// Every saved input (fuzzer finding or hand-written hostile body) keeps the decoder's properties.
    @Test func regressions_keepDecoderProperties() throws {
        for url in try Self.files(in: Self.securityDirectory.appendingPathComponent("Regressions")) {
            RequestDecoderFuzzing.check(Array(try Data(contentsOf: url)))
        }
    }

    /// The seed corpus keeps the properties too, and its valid requests decode.
    @Test func seedCorpus_keepsDecoderProperties() throws {
        let corpus = Self.securityDirectory
            .appendingPathComponent("../../../Fuzz/JSONRequestFuzz/corpus").standardizedFileURL
        let files = try Self.files(in: corpus)
        #expect(files.count >= 10)
        for url in files {
            RequestDecoderFuzzing.check(Array(try Data(contentsOf: url)))
        }
        let query = try Data(contentsOf: corpus.appendingPathComponent("query-positional"))
        #expect(throws: Never.self) { try RequestDecoder().decodeQuery(Array(query)) }
    }

    /// A body nested 100,000 deep is refused as INVALID_JSON, not a crash.
    @Test func deepNesting_isInvalidJSON() throws {
        let body = Array(
            ("{\"sql\":\"SELECT ?\",\"params\":" + String(repeating: "[", count: 100_000)
                + String(repeating: "]", count: 100_000) + "}").utf8
        )
        #expect(throws: (any Error).self) { try RequestDecoder().decodeQuery(body) }
        do {
            _ = try RequestDecoder().decodeQuery(body)
        } catch {
            #expect(error.code == "INVALID_JSON")
        }
    }
}
