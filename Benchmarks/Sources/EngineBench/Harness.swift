import Foundation

/// One workload measured for each contender.
struct Workload {
    var name: String
    /// Runs the workload once for a contender; returns a checksum so the work cannot be optimised away.
    var contenders: [(name: String, run: () throws -> Int)]
}

/// Times the contenders of each workload: one warm-up run each, then `runs` rounds in which every contender runs
/// once, interleaved (A B C A B C …), so that a burst of load on a shared machine hits every contender alike rather
/// than all the runs of one. Reports the median of each contender's runs.
enum Harness {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The 1, 5 and 15 minute load averages, formatted, or "unknown".
    static var loadAverage: String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "unknown" }
        return loads.map { String(format: "%.2f", $0) }.joined(separator: ", ")
    }

    /// Runs the workloads and returns their table rows; `times[w][c]` is the median of contender `c` on workload `w`.
    static func measure(_ workloads: [Workload], runs: Int) throws -> [(times: [Double], checksums: Set<Int>)] {
        var results: [(times: [Double], checksums: Set<Int>)] = []
        for workload in workloads {
            var checksums: Set<Int> = []
            for contender in workload.contenders {
                checksums.insert(try contender.run())  // warm-up: page cache, statement caches
            }
            var samples = [[Double]](repeating: [], count: workload.contenders.count)
            for _ in 0..<runs {
                for (index, contender) in workload.contenders.enumerated() {
                    let start = ContinuousClock.now
                    checksums.insert(try contender.run())
                    samples[index].append(seconds(ContinuousClock.now - start))
                }
            }
            let medians = samples.map { $0.sorted()[$0.count / 2] }
            results.append((medians, checksums))
        }
        return results
    }

    /// Runs every workload and prints one Markdown table with ratios to the first contender (raw C).
    static func run(_ workloads: [Workload], runs: Int) throws {
        let names = workloads.first?.contenders.map(\.name) ?? []
        let loadBefore = loadAverage
        let results = try measure(workloads, runs: runs)
        let loadAfter = loadAverage
        var header = "| workload |"
        var rule = "|---|"
        for name in names {
            header += " \(name) |"
            rule += "---:|"
        }
        for name in names.dropFirst() {
            header += " \(name) / raw C |"
            rule += "---:|"
        }
        print(header)
        print(rule)
        for (workload, result) in zip(workloads, results) {
            let times = result.times
            var line = "| \(workload.name) |"
            for time in times { line += String(format: " %.1f ms |", time * 1000) }
            for time in times.dropFirst() { line += String(format: " %.2f× |", time / times[0]) }
            if result.checksums.count != 1 { line += " (checksums differ: \(result.checksums.sorted()))" }
            print(line)
        }
        print("")
        print("Load average (1, 5, 15 min): \(loadBefore) before, \(loadAfter) after.")
    }
}
