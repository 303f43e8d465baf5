import Testing

@testable import HTTPServer

/// `ResponseFieldCache` answers as a full check would (nil for an invalid field, else whether the name has upper-case
/// letters), and remembers the last valid fields round robin.
@Suite struct ResponseFieldCacheTests {
    @Test func answersAsTheFullCheck() {
        var checked = ResponseFieldCache()
        #expect(checked.check(name: "Content-Type", value: "application/json") == true)
        #expect(checked.check(name: "content-type", value: "application/json") == false)
        #expect(checked.check(name: "Content-Type", value: "application/json") == true)
        #expect(checked.check(name: "", value: "x") == nil)
        #expect(checked.check(name: "Bad Name", value: "x") == nil)
        #expect(checked.check(name: "X-Split", value: "a\r\nSet-Cookie: b") == nil)
        #expect(checked.check(name: "X-Nul", value: "a\u{0}") == nil)
    }

    @Test func anInvalidFieldIsNeverRemembered() {
        var checked = ResponseFieldCache()
        for _ in 0..<3 { #expect(checked.check(name: "X", value: "a\nb") == nil) }
    }

    @Test func moreFieldsThanItsCapacityAreCheckedAlike() {
        var checked = ResponseFieldCache()
        let count = ResponseFieldCache.capacity * 2 + 1
        for round in 0..<2 {
            for index in 0..<count {
                #expect(checked.check(name: "X-Field-\(index)", value: "\(round)") == true)
                #expect(checked.check(name: "x-field-\(index)", value: "\(round)") == false)
            }
        }
    }
}
