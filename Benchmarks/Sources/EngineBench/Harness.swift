import Foundation

/// One workload measured for each contender.
struct Workload {
    var name: String
    /// Runs the workload once for a contender; returns a checksum so the work cannot be optimised away.
    var contenders: [(name: String, run: () throws -> Int)]
}

/// Times closures: a warm-up run, then the median of `runs` runs.
enum Harness {
    static func median(runs: Int, _ body: () throws -> Int) rethrows -> (seconds: Double, checksum: Int) {
        var checksum = try body()  // warm-up: page cache, statement caches
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            checksum = try body()
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        samples.sort()
        return (samples[samples.count / 2], checksum)
    }

    /// Runs every workload and prints one Markdown table with ratios to the first contender (raw C).
    static func run(_ workloads: [Workload], runs: Int) throws {
        let names = workloads.first?.contenders.map(\.name) ?? []
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
        for workload in workloads {
            var times: [Double] = []
            var checksums: Set<Int> = []
            for contender in workload.contenders {
                let result = try median(runs: runs, contender.run)
                times.append(result.seconds)
                checksums.insert(result.checksum)
            }
            var line = "| \(workload.name) |"
            for time in times { line += String(format: " %.1f ms |", time * 1000) }
            for time in times.dropFirst() { line += String(format: " %.2f× |", time / times[0]) }
            if checksums.count != 1 { line += " (checksums differ: \(checksums.sorted()))" }
            print(line)
        }
    }
}
