import Testing

@testable import DqliteClient

/// Every value type survives both tuple formats exactly.
@Suite struct WireTupleTests {
    static let values: [DqliteValue] = [
        .integer(.min), .integer(.max), .integer(0), .integer(-1),
        .float(0.1), .float(-0.0), .float(.greatestFiniteMagnitude), .float(.leastNonzeroMagnitude), .float(.infinity),
        .text(""), .text("héllo wörld"), .text("日本語 \u{1F30D}"), .text("1234567"), .text("12345678"),
        .blob([]), .blob([0]), .blob([0, 0, 1, 0, 255, 0, 0, 0, 0]),
        .null,
        .iso8601("2024-02-29T12:00:00Z"), .boolean(true), .boolean(false),
    ]

    /// Checks that parameters round-trip through the parameter tuple, floats bit for bit.
    @Test func parameters_roundTrip() throws {
        var writer = WireWriter()
        try WireTuple.writeParameters(Self.values, to: &writer)
        #expect(writer.count % 8 == 0)
        var reader = WireReader(writer.bytes)
        let decoded = try WireTuple.readParameters(from: &reader)
        #expect(reader.isAtEnd)
        #expect(decoded == Self.values)
        for (original, back) in zip(Self.values, decoded) {
            if case .float(let a) = original, case .float(let b) = back {
                #expect(a.bitPattern == b.bitPattern)
            }
        }
    }

    /// Checks that rows round-trip through the row tuple, UNIXTIME included.
    @Test func rows_roundTrip() throws {
        let row = Self.values + [.unixTime(.min), .unixTime(1_700_000_000)]
        var writer = WireWriter()
        try WireTuple.writeRow(row, to: &writer)
        var reader = WireReader(writer.bytes)
        #expect(try WireTuple.readRow(columns: row.count, from: &reader) == row)
        #expect(reader.isAtEnd)
    }

    /// Checks that a row header with one column is a whole word holding the type in its low nibble.
    @Test func rowHeader_oneColumn() throws {
        var writer = WireWriter()
        try WireTuple.writeRow([.float(2)], to: &writer)
        #expect(writer.bytes == [2, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0x40])
    }

    /// Checks the exact bytes of Int64's extremes: little-endian two's complement.
    @Test func integerExtremes_littleEndian() throws {
        var writer = WireWriter()
        writer.writeInt64(.min)
        writer.writeInt64(.max)
        #expect(writer.bytes == [0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])
    }

    /// Checks that a truncated parameter tuple is a protocol violation at every length.
    @Test func parameters_truncated() throws {
        var writer = WireWriter()
        try WireTuple.writeParameters(Self.values, to: &writer)
        for length in 1..<writer.count {
            var reader = WireReader(Array(writer.bytes.prefix(length)))
            #expect(throws: DqliteError.self) { _ = try WireTuple.readParameters(from: &reader) }
        }
    }
}
