import Testing

@testable import HTTPServer

/// `FramingFields` gathers, in one pass, the values of the fields that decide a request's framing and connection
/// handling, each in the order sent, whatever the case of the name; other fields are ignored.
@Suite struct FramingFieldsTests {
    @Test func gathersEachFramingFieldInOrderWhateverItsCase() {
        let fields = FramingFields(
            HTTPHeaders([
                ("Host", "a.example"), ("content-length", "5"), ("X-Other", "x"), ("CONNECTION", "keep-alive"),
                ("Expect", "100-continue"), ("Transfer-Encoding", "gzip"), ("Content-Length", "6"),
                ("transfer-encoding", "chunked"), ("host", "b.example"), ("Connection", "Upgrade"),
            ])
        )
        #expect(fields.hosts.all == ["a.example", "b.example"])
        #expect(fields.contentLength.all == ["5", "6"])
        #expect(fields.connection.all == ["keep-alive", "Upgrade"])
        #expect(fields.expect.all == ["100-continue"])
        #expect(fields.transferEncoding.all == ["gzip", "chunked"])
    }

    @Test func noFramingFields_leaveEveryListEmpty() {
        let fields = FramingFields(["Accept": "*/*", "User-Agent": "test", "Content-Type": "text/plain"])
        for values in [fields.hosts, fields.connection, fields.expect, fields.contentLength, fields.transferEncoding] {
            #expect(values.isEmpty && values.count == 0 && values.first == nil && values.all == [])
        }
    }

    /// Names of the same length as a framing field but other bytes are not taken for it; nor are longer or shorter
    /// names that contain it.
    @Test func namesOfTheSameLengthOrThatContainOne_areNotFramingFields() {
        let fields = FramingFields(
            HTTPHeaders([
                ("Hist", "1"), ("Expert", "2"), ("Connexions", "3"), ("Content-Lengt_", "4"),
                ("Transfer-Encodinx", "5"), ("Hosts", "6"), ("X-Host", "7"), ("Content-Length2", "8"),
            ])
        )
        #expect(fields.hosts.isEmpty && fields.expect.isEmpty && fields.connection.isEmpty)
        #expect(fields.contentLength.isEmpty && fields.transferEncoding.isEmpty)
    }

    /// An empty value is a value: a `Host:` field with nothing after it is counted.
    @Test func anEmptyValue_isCounted() {
        let fields = FramingFields(["Host": ""])
        #expect(!fields.hosts.isEmpty && fields.hosts.count == 1 && fields.hosts.first == "")
    }

    /// `FieldValues` keeps its first value apart and the others after it, in order.
    @Test func fieldValues_keepsEveryValueInOrder() {
        var values = FieldValues()
        #expect(values.isEmpty && values.count == 0 && values.all == [])
        values.append("a")
        #expect(!values.isEmpty && values.count == 1 && values.first == "a" && values.all == ["a"])
        values.append("b")
        values.append("c")
        #expect(values.count == 3 && values.first == "a" && values.all == ["a", "b", "c"])
    }
}
