/// The outcome of running one or more sqllogictest files.
struct SLTRunReport: Sendable, CustomStringConvertible {
    /// Statement and query records that behaved as expected.
    var passed = 0
    /// Records that did not (every one is counted, even past ``maximumFailureDescriptions``).
    var failed = 0
    /// Records skipped by `skipif` / `onlyif` for this engine.
    var skippedByCondition = 0
    /// Records refused by sqlited's SQL policy (403 `SQLITE_AUTH`), and later records naming an object such a
    /// refused record would have created.
    var skippedByPolicy = 0
    /// Query records that passed only because they expect no rows and the server answered with an SQLite error
    /// (the reference harness ignores errors raised while stepping, such as `integer overflow` from `sum()`).
    var queryErrorsTreatedAsEmpty = 0
    /// Set when a file stopped early: a `halt` record, or a transport failure (the server went away).
    var stoppedEarly: [String] = []
    /// The first failures, in order.
    var failures: [SLTFailure] = []
    /// How many failure descriptions to keep.
    var maximumFailureDescriptions = 20

    var skipped: Int { skippedByCondition + skippedByPolicy }

    mutating func recordFailure(_ failure: SLTFailure) {
        failed += 1
        if failures.count < maximumFailureDescriptions { failures.append(failure) }
    }

    /// Adds another report's counts and failures (keeping at most ``maximumFailureDescriptions``).
    mutating func merge(_ other: SLTRunReport) {
        passed += other.passed
        skippedByCondition += other.skippedByCondition
        skippedByPolicy += other.skippedByPolicy
        queryErrorsTreatedAsEmpty += other.queryErrorsTreatedAsEmpty
        stoppedEarly += other.stoppedEarly
        failed += other.failed
        for failure in other.failures where failures.count < maximumFailureDescriptions {
            failures.append(failure)
        }
    }

    var description: String {
        var text =
            "\(passed) passed, \(failed) failed, \(skipped) skipped "
            + "(\(skippedByCondition) by skipif/onlyif, \(skippedByPolicy) by SQL policy)"
        if queryErrorsTreatedAsEmpty > 0 {
            text += ", \(queryErrorsTreatedAsEmpty) query errors accepted as empty results"
        }
        for note in stoppedEarly { text += "\nstopped early: \(note)" }
        for failure in failures { text += "\n" + failure.description }
        if failed > failures.count { text += "\n… and \(failed - failures.count) more failures" }
        return text
    }
}

/// One record that did not behave as expected.
struct SLTFailure: Sendable, CustomStringConvertible {
    var file: String
    var line: Int
    var sql: String
    var reason: String
    var expected: String?
    var got: String?

    var description: String {
        var text = "\(file):\(line): \(reason)\n  SQL: \(sql.replacingNewlines())"
        if let expected { text += "\n  expected: \(expected)" }
        if let got { text += "\n  got:      \(got)" }
        return text
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ")
    }
}
