/// Runs one input through an HTTP/2 server session in several ways and reports what the session made of it.
///
/// For the libFuzzer target (`Fuzz/HTTP2Fuzz`) and the regression tests (`HTTP2RegressionInputTests`): the session
/// must never crash or hang, and must give the same outcome however the bytes are split. Each input is tried as it
/// is (a connection that did not start with the preface) and after a valid preface and an empty SETTINGS frame.
/// The flood budgets do not refill with time here, so the outcome does not depend on the clock. Not meant for
/// production use.
public enum HTTP2Fuzzing {
    /// The outcome of each feeding strategy, as text: whole, split in two at three places, one byte at a time (up to
    /// 4 KiB); each for the input alone and after the preface.
    public static func outcomes(_ bytes: [UInt8]) -> [String] {
        var results: [String] = []
        let opening = HTTP2Preface.bytes + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        for (label, prefix) in [("raw", [UInt8]()), ("preface", opening)] {
            let input = prefix + bytes
            var strategies: [[ArraySlice<UInt8>]] = [[input[...]]]
            if !bytes.isEmpty {
                for split in [input.count / 2, prefix.count + Int(bytes[0]) % bytes.count, input.count - 1] {
                    strategies.append([input[..<split], input[split...]])
                }
            }
            if input.count <= 4096 {
                strategies.append(input.indices.map { input[$0...$0] })
            }
            for chunks in strategies {
                results.append(label + ": " + run(chunks))
            }
        }
        return results
    }

    /// Traps when the strategies of `outcomes(_:)` disagree (what the fuzzer looks for, besides crashes).
    public static func check(_ bytes: [UInt8]) {
        let results = outcomes(bytes)
        for label in ["raw: ", "preface: "] {
            let group = Set(results.filter { $0.hasPrefix(label) })
            precondition(group.count == 1, "HTTP/2 session outcome depends on the split: \(group)")
        }
    }

    private static func run(_ chunks: [ArraySlice<UInt8>]) -> String {
        var limits = HTTPLimits()
        limits.maxBodySize = 256
        limits.maxHeadSize = 1024
        limits.maxHeaderCount = 16
        limits.http2.maxConcurrentStreams = 8
        limits.http2.controlFrameBurst = 64
        limits.http2.controlFrameRate = 0
        limits.http2.resetBurst = 8
        limits.http2.resetRate = 0
        let session = HTTP2Session(limits: limits, cachesMemory: false)
        var events: [String] = []
        var answers: [(Int32, Int)] = []
        // Carried across the session's requests as a connection carries it.
        var cache = HTTP2RequestCache()
        var outcome = "open"
        feeding: for chunk in chunks {
            let failure = chunk.withUnsafeBytes { bytes -> HTTP2Session.ProtocolError? in
                do throws(HTTP2Session.ProtocolError) {
                    try session.receive(bytes)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                outcome = "error(\(failure.code))"
                break feeding
            }
            for event in session.events {
                switch event {
                case .request(let streamID, let head, let body, _):
                    let request = try? HTTPRequest.fromHTTP2(
                        head: head,
                        body: body,
                        limits: limits,
                        remoteAddress: nil,
                        cache: &cache
                    )
                    events.append(
                        "request(\(streamID) \(request?.method ?? "-") \(request?.target ?? "-") body=\(body.count))"
                    )
                    answers.append((streamID, request == nil ? 400 : 200))
                case .reject(let streamID, let rejection):
                    events.append("reject(\(streamID) \(rejection.status.code))")
                    answers.append((streamID, Int(rejection.status.code)))
                }
            }
        }
        if let flood = session.floodDetected { outcome = "flood(\(flood))" }
        // Answered at the end, so that every strategy answers at the same point of the input.
        for (streamID, status) in answers {
            _ = try? session.respond(streamID: streamID, status: status, headers: [], body: Array("answer".utf8))
        }
        let output = (try? session.takeOutput()) ?? []
        return events.joined(separator: " ") + " → \(outcome), wants more: \(session.wantsToContinue), "
            + "output \(output.isEmpty ? "empty" : "sent")"
    }
}
