import Testing

@testable import SQLiteService

@Suite struct ResultFormatTests {
    /// RFC 9110 §12.5.1: the most specific range sets a format's weight, the heaviest wins, ties go to JSON (then
    /// NDJSON, then CSV); no field or `*/*` is JSON.
    @Test(
        arguments: [
            ([], ResultFormat.json), (["*/*"], .json), (["application/json"], .json), (["application/*"], .json),
            (["text/csv"], .csv), (["Text/CSV"], .csv), (["text/*"], .csv), (["application/x-ndjson"], .ndjson),
            (["text/csv, application/json"], .json), (["text/csv;q=0.5, application/x-ndjson;q=0.8"], .ndjson),
            (["text/csv;q=0.9, application/json;q=0.8"], .csv), (["*/*;q=0.1, text/csv"], .csv),
            (["application/json;q=0, */*"], .ndjson), (["application/*;q=0.2, application/x-ndjson"], .ndjson),
            (["image/png", "text/csv"], .csv), (["text/csv;;"], .csv), (["text/csv; q=0.5 ; ext=1"], .csv),
            ([#"text/csv; foo="a,b;c\"d"; q=0.9, application/json;q=0.5"#], .csv), ([", ,text/csv,"], .csv),
            (["text/csv;q=1.000"], .csv), (["text/csv;Q=0.001, image/png"], .csv),
        ] as [([String], ResultFormat)]
    )
    func negotiate_picksTheHeaviestFormat(_ accept: [String], _ expected: ResultFormat) throws {
        #expect(try ResultFormat.negotiate(accept: accept) == expected)
    }

    /// A field that is not `Accept` syntax is disregarded (RFC 9110 lets a server): JSON.
    @Test(
        arguments: [
            "text/csv;q=2", "text/csv;q=0.0001", "text/csv;q=1.5", "text/csv;q=", "text/csv;=1", "text", "*/csv",
            "text/csv; foo=\"open", "text/csv extra", "a/b/c", "text/csv;q=.5",
        ]
    )
    func negotiate_malformedFieldIsJSON(_ accept: String) throws {
        #expect(MediaRange.parseList(accept) == nil)
        #expect(try ResultFormat.negotiate(accept: [accept]) == .json)
    }

    /// No format allowed, or every one at weight 0: 406 NOT_ACCEPTABLE.
    @Test(
        arguments: [
            "image/png", "text/html, image/*", "*/*;q=0",
            "application/json;q=0, application/x-ndjson;q=0, text/csv;q=0",
            "application/*;q=0, text/*;q=0",
        ]
    )
    func negotiate_nothingAcceptable_is406(_ accept: String) {
        #expect(throws: APIError.self) { try ResultFormat.negotiate(accept: [accept]) }
        do {
            _ = try ResultFormat.negotiate(accept: [accept])
        } catch {
            #expect(error.status == 406 && error.code == "NOT_ACCEPTABLE")
        }
    }

    /// Weights in thousandths, as RFC 9110 §12.4.2 spells them.
    @Test func weight_parsesQValues() {
        #expect(MediaRange.weight("1") == 1000)
        #expect(MediaRange.weight("0.5") == 500)
        #expect(MediaRange.weight("0.125") == 125)
        #expect(MediaRange.weight("0.") == 0)
        #expect(MediaRange.weight("1.0000") == nil)
        #expect(MediaRange.weight("1.001") == nil)
    }
}
