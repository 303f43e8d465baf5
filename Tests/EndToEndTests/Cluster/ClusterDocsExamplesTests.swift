import Foundation
import Testing

/// The outputs `docs/cluster.md` shows, checked against the shared cluster (issue #32): its nodes listen on free
/// ports and any of them may lead, so addresses, ids and who leads are compared as such, everything else as shown.
@Suite struct ClusterDocsExamplesTests {
    static func page() throws -> [String] {
        try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/cluster.md"), encoding: .utf8)
            .components(separatedBy: "\n")
    }

    /// The `cluster list` example: the same header, one line per member with its id, address, role and `yes` for
    /// the leader alone.
    @Test func clusterListExample_isWhatTheCommandPrints() throws {
        let lines = try Self.page()
        let intro = try #require(lines.firstIndex { $0.hasPrefix("- `list`: a header line") })
        let open = try #require(lines[intro...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "```" })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "```" })
        let shown = lines[(open + 1)..<close].map { $0.trimmingCharacters(in: .whitespaces) }

        let cluster = try SharedCluster.get()
        let run = try ClusterCommandTests.run(["list", "--member", cluster.nodes[0].raftAddress])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = run.stdout.split(separator: "\n").map(String.init)
        #expect(printed.first == shown.first, "the header line")
        #expect(printed.count == shown.count)
        /// A member line with its address as the doc's node of that id has it, and who leads left out.
        func normalized(_ line: String) -> String {
            var fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 4 else { return line }
            fields[1] = "127.0.0.1:900\(fields[0])"
            fields[3] = "-"
            return fields.joined(separator: "\t")
        }
        #expect(printed.dropFirst().map(normalized) == shown.dropFirst().map(normalized))
        for list in [printed, shown] {
            #expect(list.dropFirst().filter { $0.hasSuffix("\tyes") }.count == 1, "one leader: \(list)")
            #expect(list.dropFirst().allSatisfy { $0.hasSuffix("\tyes") || $0.hasSuffix("\tno") })
        }
    }

    /// The `GET /cluster` example: the real answer has the members, fields and order shown, up to the `...`.
    @Test func clusterStatusExample_isWhatTheNodeAnswers() throws {
        let lines = try Self.page()
        let command = try #require(lines.firstIndex(of: "curl -s localhost:8083/cluster"))
        var shown = ""
        for line in lines[(command + 1)...] {
            guard line.hasPrefix("#") else { break }
            shown += line.dropFirst().trimmingCharacters(in: .whitespaces)
        }
        let prefix = try #require(shown.components(separatedBy: " ... ").first?.components(separatedBy: "...").first)
        let cluster = try SharedCluster.get()
        let answer = try cluster.client(3).get("/cluster")
        #expect(answer.status == 200)
        /// Addresses, ids and who leads as placeholders.
        func normalized(_ text: String) -> String {
            var text = text.replacingOccurrences(of: " ", with: "")
            for (pattern, placeholder) in [
                (#""address":"127\.0\.0\.1:[0-9]+""#, #""address":"A""#), (#""id":[0-9]+"#, #""id":N"#),
                (#""leader":(true|false)"#, #""leader":B"#),
            ] {
                text = text.replacingOccurrences(of: pattern, with: placeholder, options: .regularExpression)
            }
            return text
        }
        #expect(normalized(answer.bodyText).hasPrefix(normalized(prefix)), "\(answer.bodyText) vs \(prefix)")
        #expect(try answer.json()["node"]?["id"]?.int64Value == 3)
    }
}
