/// Runs the request parser over one input in several ways and reports what it decided each time.
///
/// For the libFuzzer target (`Fuzz/HTTPParserFuzz`) and the regression tests (`RegressionInputTests`): the parser
/// must give the same outcome however the bytes are split, under any limits, and must never crash or hang. Not
/// meant for production use.
public enum HTTPParserFuzzing {
    /// The outcome of each feeding strategy, as text (one entry per strategy, all equal for a correct parser).
    ///
    /// Strategies: whole; split in two at positions derived from the input; one byte at a time (inputs up to
    /// 4 KiB) — each under the default limits and under tight ones.
    public static func outcomes(_ bytes: [UInt8]) -> [String] {
        var tight = HTTPLimits()
        tight.maxBodySize = 64
        tight.maxHeadSize = 256
        tight.maxHeaderCount = 4
        tight.maxTargetLength = 32
        tight.maxChunkLineLength = 16
        var results: [String] = []
        for limits in [HTTPLimits(), tight] {
            var strategies: [[ArraySlice<UInt8>]] = [[bytes[...]]]
            if !bytes.isEmpty {
                for split in [bytes.count / 2, Int(bytes[0]) % bytes.count, bytes.count - 1] {
                    strategies.append([bytes[..<split], bytes[split...]])
                }
            }
            if bytes.count <= 4096 {
                strategies.append(bytes.indices.map { bytes[$0...$0] })
            }
            for chunks in strategies {
                results.append((limits == tight ? "tight: " : "default: ") + run(chunks, limits: limits))
            }
        }
        return results
    }

    /// Traps when the strategies of `outcomes(_:)` disagree (what the fuzzer looks for, besides crashes).
    public static func check(_ bytes: [UInt8]) {
        let results = outcomes(bytes)
        let defaults = results.filter { $0.hasPrefix("default: ") }
        let tights = results.filter { $0.hasPrefix("tight: ") }
        precondition(
            Set(defaults).count == 1 && Set(tights).count == 1,
            "parser outcome depends on the split: \(results)"
        )
    }

    private static func run(_ chunks: [ArraySlice<UInt8>], limits: HTTPLimits) -> String {
        var parser = RequestParser(limits: limits)
        var events: [String] = []
        for chunk in chunks {
            parser.feed(chunk)
            parsing: while true {
                switch parser.next() {
                case .needMoreData:
                    break parsing
                case .send100Continue:
                    events.append("100")
                case .requestComplete(let request):
                    events.append(
                        "request(\(request.method) \(request.target) \(request.version) "
                            + "headers=\(request.headers.count) body=\(request.body.count) "
                            + "keepAlive=\(request.keepAlive))"
                    )
                case .reject(let rejection):
                    events.append("reject(\(rejection.status.code) \(rejection.code))")
                    return events.joined(separator: " ")
                }
            }
        }
        return events.joined(separator: " ")
    }
}
