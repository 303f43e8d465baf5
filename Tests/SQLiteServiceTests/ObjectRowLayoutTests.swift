import Testing

@testable import SQLiteService

@Suite struct ObjectRowLayoutTests {
    /// Only the last column of each repeated name is written; distinct names are all written.
    @Test(arguments: [
        ([] as [String], [] as [Bool]),
        (["id", "name"], [true, true]),
        (["a", "b", "a"], [false, true, true]),
        (["x", "x", "x"], [false, false, true]),
        (["a", "A", "a", "b", "A"], [false, false, true, true, true]),
        (["", ""], [false, true]),
        // Past 16 columns the names are hashed rather than compared pairwise: same answer.
        ((0..<17).map { "c\($0)" } + ["c3"], (0..<18).map { $0 != 3 }),
    ])
    func layout_keepsLastColumnOfEachName(_ names: [String], _ expected: [Bool]) {
        let layout = ObjectRowLayout(columnNames: names)
        #expect(layout.writesColumn == expected)
        #expect(layout.dropsColumns == expected.contains(false))
    }

    /// A row written with the layout is an object the strict parser accepts, holding the last value of each name.
    @Test func layout_producesParsableRowObject() throws {
        let names = ["a", "b", "a"]
        let values: [Int64] = [1, 2, 3]
        let layout = ObjectRowLayout(columnNames: names)
        var writer = JSONWriter()
        writer.beginObject()
        for index in names.indices where layout.writesColumn[index] {
            writer.key(names[index])
            writer.writeInt64(values[index])
        }
        writer.endObject()
        guard case .object(let row) = try JSONParser().parse(writer.bytes) else {
            Issue.record("not an object")
            return
        }
        #expect(row["a"] == .integer(3))
        #expect(row["b"] == .integer(2))
        #expect(row.count == 2)
    }
}
