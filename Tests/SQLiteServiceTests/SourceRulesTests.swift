import Foundation
import Synchronization
import Testing

@testable import SQLiteService

/// Rules about how the sources are written that the compiler does not enforce.
@Suite struct SourceRulesTests {
    /// The repository's `Sources` directory.
    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// No closure is stored in a `Mutex` directly (`Mutex<(@Sendable … -> …)?>`): each `withLock { $0 }` read wraps
    /// it in two more thunks (``StoredClosure``), so it must be wrapped in a struct.
    @Test func noClosureIsStoredInAMutexDirectly() throws {
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)
        var offenders: [String] = []
        var swiftFiles = 0
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            swiftFiles += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("Mutex<(") && line.contains("->")
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            {
                offenders.append(
                    "\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))"
                )
            }
        }
        #expect(swiftFiles > 100, "the sources were not found at \(Self.sources.path)")
        #expect(offenders.isEmpty, "\(offenders)")
    }

    /// The wrapper keeps one closure through any number of reads out of its `Mutex`: the same result every time.
    @Test func aStoredClosure_readManyTimes_callsTheSameClosure() {
        let stored = Mutex<StoredClosure<Int, Int>?>(StoredClosure { $0 * 2 })
        var total = 0
        for value in 0..<10_000 {
            total += stored.withLock { $0 }?(value) ?? 0
        }
        #expect(total == 2 * (0..<10_000).reduce(0, +))
    }
}
