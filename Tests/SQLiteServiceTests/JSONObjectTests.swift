import Testing

@testable import SQLiteService

@Suite struct JSONObjectTests {
    /// Setting a key replaces in place, appends when new, and removes with nil; keys stay unique and ordered.
    @Test func subscript_setsReplacesAndRemoves() {
        var object = JSONObject()
        #expect(object.isEmpty)
        object["b"] = .integer(1)
        object["a"] = .integer(2)
        object["b"] = .string("x")
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .string("x"))
        object["b"] = nil
        object["missing"] = nil
        #expect(object.keys == ["a"])
        #expect(object.count == 1)
        #expect(object.members == [JSONObject.Member(key: "a", value: .integer(2))])
    }

    /// Equality compares members in order.
    @Test func equality_isOrderSensitive() {
        var first = JSONObject()
        first["a"] = .null
        first["b"] = .null
        var second = JSONObject()
        second["b"] = .null
        second["a"] = .null
        #expect(first != second)
        second["b"] = nil
        second["b"] = .null
        #expect(first == second)
    }
}
