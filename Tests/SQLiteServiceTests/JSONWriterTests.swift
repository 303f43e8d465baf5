import Foundation
import LoopbackTestSupport
import Testing

@testable import SQLiteService

func written(_ body: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    body(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}

@Suite struct JSONWriterTests {
    /// Commas and colons are placed automatically in nested objects and arrays.
    @Test func writer_placesCommasAutomatically() {
        let text = written { writer in
            writer.beginObject()
            writer.key("columns")
            writer.beginArray()
            writer.writeString("id")
            writer.writeString("name")
            writer.endArray()
            writer.key("rows")
            writer.beginArray()
            for id in 1...2 {
                writer.beginObject()
                writer.key("id")
                writer.writeInt64(Int64(id))
                writer.key("name")
                writer.writeNull()
                writer.endObject()
            }
            writer.beginArray()
            writer.endArray()
            writer.beginObject()
            writer.endObject()
            writer.endArray()
            writer.key("ok")
            writer.writeBool(true)
            writer.key("no")
            writer.writeBool(false)
            writer.endObject()
        }
        #expect(
            text
                == #"{"columns":["id","name"],"rows":[{"id":1,"name":null},{"id":2,"name":null},[],{}],"ok":true,"no":false}"#
        )
    }

    /// Integers are written exactly, including both Int64 extremes.
    @Test(arguments: [
        (Int64(0), "0"), (1, "1"), (-1, "-1"), (10, "10"), (-10, "-10"), (1_234_567_890, "1234567890"),
        (.max, "9223372036854775807"), (.min, "-9223372036854775808"),
        (9_007_199_254_740_993, "9007199254740993"),
    ])
    func writeInt64_isExact(_ value: Int64, _ expected: String) {
        #expect(written { $0.writeInt64(value) } == expected)
    }

    /// With `int64_as_string`, integers beyond ±(2^53 − 1) become strings and the others stay numbers.
    @Test(arguments: [
        (Int64(9_007_199_254_740_991), "9007199254740991"),
        (-9_007_199_254_740_991, "-9007199254740991"),
        (9_007_199_254_740_992, "\"9007199254740992\""),
        (-9_007_199_254_740_992, "\"-9007199254740992\""),
        (.max, "\"9223372036854775807\""),
        (.min, "\"-9223372036854775808\""),
        (0, "0"),
        (42, "42"),
    ])
    func writeInt64_asStringIfUnsafe(_ value: Int64, _ expected: String) {
        #expect(written { $0.writeInt64(value, asStringIfUnsafe: true) } == expected)
        #expect(
            written { $0.writeInt64(value, asStringIfUnsafe: false) }
                == expected.replacingOccurrences(of: "\"", with: "")
        )
    }

    /// Doubles use the shortest round-trip text, always with a fraction or exponent; infinities and NaN are total.
    @Test(arguments: [
        (1.0, "1.0"), (-0.0, "-0.0"), (0.0, "0.0"), (0.1, "0.1"), (-2.5, "-2.5"), (1e16, "1e+16"),
        (1e-5, "1e-05"), (123456789.0, "123456789.0"), (.leastNonzeroMagnitude, "5e-324"),
        (.greatestFiniteMagnitude, "1.7976931348623157e+308"), (.leastNormalMagnitude, "2.2250738585072014e-308"),
        (9007199254740993.0, "9007199254740992.0"), (1.0 / 3.0, "0.3333333333333333"),
        (.infinity, "\"Infinity\""), (-.infinity, "\"-Infinity\""), (.nan, "null"),
    ])
    func writeDouble_shortestRoundTripText(_ value: Double, _ expected: String) {
        #expect(written { $0.writeDouble(value) } == expected)
    }

    /// Every control character is escaped, with the short forms where JSON has them; quote and backslash too.
    @Test func writeString_escapesControlCharacters() throws {
        let short: [UInt8: String] = [0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"]
        for byte in UInt8(0)..<0x20 {
            let expected = short[byte] ?? String(format: "\\u%04x", byte)
            let text = String(decoding: [byte], as: UTF8.self)
            #expect(written { $0.writeString(text) } == "\"\(expected)\"")
            let fromBytes = [byte].withUnsafeBytes { buffer in written { $0.writeString(utf8: buffer) } }
            #expect(fromBytes == "\"\(expected)\"")
        }
        #expect(written { $0.writeString("a\"b\\c/d\u{7F}é😀") } == "\"a\\\"b\\\\c/d\u{7F}é😀\"")
        #expect(written { $0.writeString("") } == "\"\"")
        #expect(written { $0.writeString("a\u{0}b") } == "\"a\\u0000b\"")
    }

    /// Invalid UTF-8 from SQLite is repaired with U+FFFD per maximal subpart, exactly like Swift's own decoding.
    @Test(arguments: [
        ([0x61, 0xFF, 0x62] as [UInt8], "a\u{FFFD}b"),
        ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),
        ([0xE0, 0x80, 0xAF], "\u{FFFD}\u{FFFD}\u{FFFD}"),
        ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
        ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
        ([0xE2, 0x82], "\u{FFFD}"),
        ([0xE2, 0x82, 0x41], "\u{FFFD}A"),
        ([0xF0, 0x9F, 0x98], "\u{FFFD}"),
        ([0xF0, 0x9F, 0x98, 0x80], "😀"),
        ([0x22, 0xC3], "\\\"\u{FFFD}"),
        ([0xC3, 0xA9, 0x00, 0x80], "é\\u0000\u{FFFD}"),
    ])
    func writeStringUTF8_repairsInvalidUTF8(_ bytes: [UInt8], _ expectedContent: String) throws {
        let text = bytes.withUnsafeBytes { buffer in written { $0.writeString(utf8: buffer) } }
        #expect(text == "\"\(expectedContent)\"")
    }

    /// For arbitrary bytes, the output is valid JSON whose string equals Swift's repairing UTF-8 decoding.
    @Test func writeStringUTF8_randomBytesMatchStandardLibraryRepair() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let interesting: [UInt8] = [
            0x00, 0x1F, 0x22, 0x5C, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
            0xA0, 0x90, 0x8F,
        ]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<length).map { _ in interesting.randomElement(using: &generator)! }
            var writer = JSONWriter()
            bytes.withUnsafeBytes { writer.writeString(utf8: $0) }
            let parsed = try JSONParser().parse(writer.bytes)
            #expect(parsed == .string(String(decoding: bytes, as: UTF8.self)), "bytes \(bytes)")
        }
    }

    /// Blobs are written as `{"base64":"..."}` with the RFC 4648 §10 test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func writeBase64_encodesRFC4648Vectors(_ input: String, _ expected: String) {
        #expect(written { $0.writeBase64(Array(input.utf8)) } == "{\"base64\":\"\(expected)\"}")
    }

    /// Every byte value survives a base64 round trip through the writer and the strict decoder.
    @Test func writeBase64_roundTripsAllByteValues() throws {
        for length in 0..<260 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var writer = JSONWriter()
            writer.writeBase64(bytes)
            guard case .object(let object) = try JSONParser().parse(writer.bytes),
                case .string(let encoded)? = object["base64"]
            else {
                Issue.record("not a base64 object")
                return
            }
            #expect(Base64.decode(encoded) == bytes)
            #expect(Data(base64Encoded: encoded) == Data(bytes))
        }
    }

    /// Raw JSON, UTF-8 keys and `takeBytes` compose with the automatic commas.
    @Test func writer_rawValuesAndUTF8Keys() {
        var writer = JSONWriter()
        writer.beginObject()
        Array("col\u{1}".utf8).withUnsafeBytes { writer.key(utf8: $0) }
        writer.writeRaw(Array("[1,2]".utf8))
        writer.key("b")
        writer.writeRaw(Array("{}".utf8))
        writer.endObject()
        #expect(writer.takeBytes() == Array(#"{"col\u0001":[1,2],"b":{}}"#.utf8))
        #expect(writer.bytes.isEmpty)
        writer.writeInt64(1)
        #expect(writer.bytes == Array("1".utf8))
    }

    /// The values a response can hold, written by the writer.
    static func sampleValues() -> [JSONValue] {
        var values: [JSONValue] = [
            .null, .bool(true), .bool(false),
            .integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min), .integer(.max - 1),
            .integer(.min + 1), .integer(9_007_199_254_740_991), .integer(-9_007_199_254_740_993),
            .double(0.0), .double(-0.0), .double(0.1), .double(0.2), .double(0.30000000000000004), .double(1.0),
            .double(-1.0), .double(1e16), .double(1e-5), .double(1e300), .double(1e-300), .double(123.456),
            .double(.leastNonzeroMagnitude), .double(-.leastNonzeroMagnitude), .double(.leastNormalMagnitude),
            .double(.leastNormalMagnitude.nextDown), .double(.greatestFiniteMagnitude),
            .double(-.greatestFiniteMagnitude), .double(9007199254740992.0), .double(.pi),
            .double(Double(bitPattern: 5000)),
            .string(""), .string("plain"), .string("emoji 😀👍🏽🇫🇷 family 👨‍👩‍👧"), .string("a\u{0}b\u{0}"),
            .string(String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)), .string("\"\\/"),
            .string("\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{2028}\u{2029}\u{FEFF}"),
            .string("日本語のテキスト"), .array([]), .object(JSONObject()),
        ]
        var generator = SplitMix64(seed: 42)
        for _ in 0..<500 {
            values.append(.integer(Int64(bitPattern: generator.next())))
            var double = Double(bitPattern: generator.next())
            while !double.isFinite { double = Double(bitPattern: generator.next()) }
            values.append(.double(double))
            let scalars = (0..<Int.random(in: 0...8, using: &generator)).map { _ -> Character in
                var value = UInt32.random(in: 0...0x10FFFF, using: &generator)
                if (0xD800...0xDFFF).contains(value) { value = 0xFFFD }
                return Character(Unicode.Scalar(value)!)
            }
            values.append(.string(String(scalars)))
        }
        var nested = JSONObject()
        nested["list"] = .array(Array(values.prefix(20)))
        nested["name"] = .string("x")
        values.append(.object(nested))
        return values
    }

    /// Writer output parses back to the same values with this module's parser (doubles bit for bit).
    @Test func writer_roundTripsThroughParser() throws {
        let values = Self.sampleValues()
        var writer = JSONWriter()
        writer.write(.array(values))
        let parsed = try JSONParser().parse(writer.bytes)
        guard case .array(let elements) = parsed else {
            Issue.record("not an array")
            return
        }
        try #require(elements.count == values.count)
        for (written, read) in zip(values, elements) {
            if case .double(let expected) = written, case .double(let actual) = read {
                #expect(expected.bitPattern == actual.bitPattern, "\(expected)")
            } else {
                #expect(written == read)
            }
        }
    }

    /// Writer output is accepted by Foundation's JSONSerialization, and reads back as the same values.
    @Test func writer_roundTripsThroughFoundation() throws {
        let values = Self.sampleValues()
        var writer = JSONWriter()
        writer.write(.array(values))
        let object = try JSONSerialization.jsonObject(with: Data(writer.bytes), options: [.fragmentsAllowed])
        let elements = try #require(object as? [Any])
        try #require(elements.count == values.count)
        for (value, element) in zip(values, elements) {
            switch value {
            case .null:
                #expect(element is NSNull)
            case .bool(let flag):
                #expect((element as? NSNumber)?.boolValue == flag)
            case .integer(let integer):
                #expect((element as? NSNumber)?.int64Value == integer, "\(integer)")
            case .double(let double):
                // Foundation keeps many decimals as NSDecimalNumber, whose doubleValue is off by a few ULPs on
                // Linux (swift-corelibs-foundation #5173); its decimal text is exact, so compare that.
                let number = try #require(element as? NSNumber)
                let read = try #require(Double(number.description))
                #expect(read.bitPattern == double.bitPattern, "\(double)")
            case .string(let string):
                #expect(element as? String == string)
            case .array(let array):
                #expect((element as? [Any])?.count == array.count)
            case .object(let object):
                #expect((element as? [String: Any])?.count == object.count)
            }
        }
    }

    /// Doubles written by the writer decode bit for bit with Foundation's JSONDecoder.
    @Test func writeDouble_roundTripsThroughJSONDecoder() throws {
        let doubles = Self.sampleValues().compactMap { value -> Double? in
            if case .double(let double) = value { return double }
            return nil
        }
        var writer = JSONWriter()
        writer.beginArray()
        for double in doubles { writer.writeDouble(double) }
        writer.endArray()
        let decoded = try JSONDecoder().decode([Double].self, from: Data(writer.bytes))
        #expect(decoded.map(\.bitPattern) == doubles.map(\.bitPattern))
    }

    /// A string with every control character, NUL and emoji round-trips through Foundation as one document.
    @Test func writeString_roundTripsThroughFoundation() throws {
        let text = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "😀\u{0}é"
        var writer = JSONWriter()
        writer.beginArray()
        writer.writeString(text)
        writer.endArray()
        let array = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String])
        #expect(array == [text])
    }
}
