import Foundation
import Testing

@Suite struct SQLiteValueConversionTests {
    /// `%.3f` follows SQLite's printf: 16 significant digits (rounded, as the corpus expects), no sign on -0.0,
    /// half-up rounding.
    @Test(arguments: [
        (1.25, "1.250"),
        (0.0, "0.000"),
        (-0.0, "0.000"),
        (-1.0, "-1.000"),
        (0.0005, "0.001"),
        (-0.0004, "-0.000"),
        (2.0 / 3.0, "0.667"),
        (-9_223_372_036_854_775_808.0, "-9223372036854776000.000"),
        (-18_446_744_073_709_551_616.0, "-18446744073709550000.000"),
        (123_456_789_012_345_678.0, "123456789012345700.000"),
        (1e16, "10000000000000000.000"),
        (Double.infinity, "Inf"),
        (-Double.infinity, "-Inf"),
    ])
    func fixedThreeDecimals_matchesSQLitePrintf(value: Double, expected: String) {
        #expect(SQLiteValueConversion.fixedThreeDecimals(value) == expected)
    }

    /// REAL to TEXT follows SQLite's `%!.15g`: always a decimal point, 15 significant digits, `e+NN` exponents.
    @Test(arguments: [
        (1e20, "1.0e+20"),
        (2.0, "2.0"),
        (0.1 + 0.2, "0.3"),
        (1.5e-7, "1.5e-07"),
        (123_456_789_012_345_678.0, "1.23456789012346e+17"),
        (1e15, "1.0e+15"),
        (123_456_789_012_345.0, "123456789012345.0"),
        (0.0, "0.0"),
        (-0.0, "0.0"),
        (0.0001, "0.0001"),
        (1e-5, "1.0e-05"),
        (-2.5, "-2.5"),
        (1e300, "1.0e+300"),
        (Double.infinity, "Inf"),
    ])
    func realAsText_matchesSQLiteCast(value: Double, expected: String) {
        #expect(SQLiteValueConversion.realAsText(value) == expected)
    }

    /// TEXT to INTEGER reads the leading integer (sqlite3Atoi64): whitespace, sign, digits; clamps on overflow.
    @Test(arguments: [
        ("42", Int64(42)), ("  -17abc", -17), ("+5", 5), ("abc", 0), ("", 0), ("1.9e3", 1),
        ("99999999999999999999", Int64.max), ("-99999999999999999999", Int64.min),
        ("-9223372036854775808", Int64.min), ("9223372036854775807", Int64.max),
    ])
    func int64FromText_readsLeadingInteger(text: String, expected: Int64) {
        #expect(SQLiteValueConversion.int64(fromText: Array(text.utf8)) == expected)
    }

    /// TEXT to REAL reads the longest decimal prefix (sqlite3AtoF).
    @Test(arguments: [
        ("1.5", 1.5), ("  -2.5e2xyz", -250.0), (".5", 0.5), ("5.", 5.0), ("1e", 1.0), ("abc", 0.0), ("-", 0.0),
        ("1.e2", 100.0), ("inf", 0.0),
    ])
    func doubleFromText_readsLeadingNumber(text: String, expected: Double) {
        #expect(SQLiteValueConversion.double(fromText: Array(text.utf8)) == expected)
    }

    /// REAL to INTEGER truncates toward zero and clamps (doubleToInt64); column_int keeps the low 32 bits.
    @Test func integerConversions_truncateAndClamp() {
        #expect(SQLiteValueConversion.int64(fromReal: -2.9) == -2)
        #expect(SQLiteValueConversion.int64(fromReal: 2.9) == 2)
        #expect(SQLiteValueConversion.int64(fromReal: 1e30) == Int64.max)
        #expect(SQLiteValueConversion.int64(fromReal: -1e30) == Int64.min)
        #expect(SQLiteValueConversion.int32(fromInteger: 4_294_967_297) == 1)
        #expect(SQLiteValueConversion.int32(fromInteger: -1) == -1)
    }

    /// On many computed values, `%.3f` and REAL-to-TEXT agree with the system `sqlite3` tool (which uses the same
    /// libsqlite3 as sqlited). Values are computed by IEEE division/multiplication, identical on both sides.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs /usr/bin/sqlite3"))
    func realFormatting_agreesWithSQLiteCommandLineTool() throws {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        let scales: [(String, Double)] = [("1.0", 1.0), ("100000.0", 1e5), ("10000000000.0", 1e10), ("1e20", 1e20)]
        var tuples: [String] = []
        var values: [Double] = []
        for index in 0..<1_500 {
            let a = Int64(next() % 20_000_001) - 10_000_000
            let b = Int64(next() % 999) + 1
            let multiply = scales[index % scales.count]
            let divide = scales[(index / scales.count) % scales.count]
            tuples.append("(\(a),\(b),\(multiply.0),\(divide.0))")
            values.append(Double(a) / Double(b) * multiply.1 / divide.1)
        }
        let sql =
            "SELECT printf('%.3f', v) || '|' || CAST(v AS TEXT) FROM "
            + "(SELECT CAST(column1 AS REAL) / column2 * column3 / column4 AS v FROM (VALUES "
            + tuples.joined(separator: ",") + "));\n"
        let directory = try TemporaryDirectory()
        let scriptURL = directory.path("oracle.sql")
        try sql.write(to: scriptURL, atomically: true, encoding: .utf8)
        let output = try runSQLiteTool(arguments: ["-batch", ":memory:", ".read \(scriptURL.path)"])
        let lines = output.split(separator: "\n").map(String.init)
        try #require(lines.count == values.count)
        var mismatches: [String] = []
        for (value, line) in zip(values, lines) {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            try #require(parts.count == 2)
            // From 1e16 up the corpus expects rounded digits where SQLite 3.40 truncates (see fixedThreeDecimals).
            if value.magnitude < 1e16 && SQLiteValueConversion.fixedThreeDecimals(value) != parts[0] {
                mismatches.append(
                    "\(value): sqlite3 %.3f \(parts[0]), ours \(SQLiteValueConversion.fixedThreeDecimals(value))"
                )
            }
            if SQLiteValueConversion.realAsText(value) != parts[1] {
                mismatches.append("\(value): sqlite3 text \(parts[1]), ours \(SQLiteValueConversion.realAsText(value))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(10))")
    }

    private func runSQLiteTool(arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
