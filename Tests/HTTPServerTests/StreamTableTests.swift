import Testing

@testable import HTTPServer

/// `StreamTable` maps stream ids to values, in a small array up to `linearLimit` entries and in a dictionary past it:
/// what it holds, finds, replaces, removes and iterates is the same on either side of the switch, and back.
@Suite struct StreamTableTests {
    /// Counts the releases of the `Tracked` values made with it.
    final class Releases {
        var count = 0
    }

    /// A value whose release is counted, to see that a removed value is let go.
    final class Tracked {
        let id: Int32
        let releases: Releases
        init(_ id: Int32, _ releases: Releases) {
            self.id = id
            self.releases = releases
        }
        deinit { releases.count += 1 }
    }

    /// The table's entries as a dictionary, checking that iteration gives each id once.
    private static func entries<Value>(_ table: StreamTable<Value>) -> [Int32: Value] {
        var seen: [Int32: Value] = [:]
        for (id, value) in table {
            #expect(seen[id] == nil, "id \(id) given twice")
            seen[id] = value
        }
        #expect(seen.count == table.count)
        return seen
    }

    @Test func anEmptyTable_holdsNothing() {
        var table = StreamTable<String>()
        #expect(table.isEmpty && table.count == 0 && table.underestimatedCount == 0)
        #expect(table[1] == nil)
        #expect(Self.entries(table).isEmpty)
        #expect(table.removeValue(forKey: 1) == nil)
        table[1] = nil
        #expect(table.isEmpty)
    }

    /// At every size, from empty to three times the linear limit and back, each id gives its value and only its own.
    @Test func everySize_findsEachEntryAcrossTheSwitchAndBack() {
        var table = StreamTable<Int>()
        let total = StreamTable<Int>.linearLimit * 3
        var expected: [Int32: Int] = [:]
        for index in 0..<total {
            let id = Int32(index * 2 + 1)
            table[id] = index
            expected[id] = index
            #expect(table.count == expected.count && !table.isEmpty)
            #expect(table.underestimatedCount == expected.count)
            #expect(Self.entries(table) == expected)
            #expect(table[id + 1] == nil, "an even id was never inserted")
        }
        // Removed in another order than inserted: from the middle outwards.
        let order = expected.keys.sorted { abs($0 - Int32(total)) < abs($1 - Int32(total)) }
        for id in order {
            #expect(table.removeValue(forKey: id) == expected[id])
            expected[id] = nil
            #expect(table[id] == nil)
            #expect(table.count == expected.count)
            #expect(Self.entries(table) == expected)
        }
        #expect(table.isEmpty)
    }

    /// Exactly `linearLimit` entries, then one more: the one that makes the switch is kept with all the others.
    @Test func theEntryThatTriggersTheSwitch_isKept() {
        var table = StreamTable<String>()
        let limit = StreamTable<String>.linearLimit
        for id in 1...limit { table[Int32(id)] = "v\(id)" }
        #expect(table.count == limit)
        table[Int32(limit + 1)] = "v\(limit + 1)"
        #expect(table.count == limit + 1)
        for id in 1...limit + 1 { #expect(table[Int32(id)] == "v\(id)") }
    }

    /// Assigning to a present id replaces its value without adding an entry, on either side of the switch.
    @Test func assigningAPresentID_replacesItsValue() {
        var table = StreamTable<String>()
        table[5] = "a"
        table[5] = "b"
        #expect(table.count == 1 && table[5] == "b")
        for id in 10..<(10 + StreamTable<String>.linearLimit) { table[Int32(id)] = "x" }
        table[5] = "c"
        #expect(table.count == StreamTable<String>.linearLimit + 1 && table[5] == "c")
    }

    /// Removing an absent id changes nothing, in either form.
    @Test func removingAnAbsentID_changesNothing() {
        var table = StreamTable<String>()
        table[1] = "one"
        table[3] = nil
        #expect(table.removeValue(forKey: 3) == nil)
        #expect(Self.entries(table) == [1: "one"])
        for id in 2...(StreamTable<String>.linearLimit + 1) { table[Int32(id * 2 + 1)] = "more" }
        let count = table.count
        table[2] = nil
        #expect(table.removeValue(forKey: 2) == nil)
        #expect(table.count == count && table[1] == "one")
    }

    /// Emptied from its dictionary form, the table is linear again and behaves as new; partly emptied, it still
    /// takes and finds new entries.
    @Test func afterTheDictionary_newEntriesAreFoundAndRemoved() {
        var table = StreamTable<String>()
        let many = StreamTable<String>.linearLimit + 4
        for id in 1...many { table[Int32(id)] = "v\(id)" }
        for id in 1...many - 2 { table[Int32(id)] = nil }
        #expect(table.count == 2)
        table[100] = "hundred"
        #expect(Self.entries(table) == [Int32(many - 1): "v\(many - 1)", Int32(many): "v\(many)", 100: "hundred"])
        table[Int32(many - 1)] = nil
        table[Int32(many)] = nil
        table[100] = nil
        #expect(table.isEmpty)
        table[7] = "seven"
        table[9] = "nine"
        table[7] = nil
        #expect(table.map(\.id) == [9] && table.map(\.value) == ["nine"])
        #expect(table[9] == "nine" && table[7] == nil)
        // And it can switch to a dictionary a second time.
        for id in 20..<(20 + many) { table[Int32(id)] = "w" }
        #expect(table.count == many + 1 && table[9] == "nine" && table[20] == "w")
    }

    /// Any Int32 is an id: zero, negative and the largest (the table does not check stream id rules).
    @Test func anyInt32_isAnID() {
        var table = StreamTable<Int>()
        let ids: [Int32] = [0, -1, .max, .min, 1]
        for (index, id) in ids.enumerated() { table[id] = index }
        for (index, id) in ids.enumerated() { #expect(table[id] == index) }
    }

    /// A removed value is released, not kept in the table's storage, in either form.
    @Test func aRemovedValue_isReleased() {
        let releases = Releases()
        var table = StreamTable<Tracked>()
        let many = StreamTable<Tracked>.linearLimit * 2
        table[1] = Tracked(1, releases)
        table[1] = nil
        #expect(releases.count == 1)
        for id in 1...many { table[Int32(id)] = Tracked(Int32(id), releases) }
        #expect(releases.count == 1)
        #expect(table.removeValue(forKey: 3)?.id == 3)
        #expect(releases.count == 2)
        table[4] = Tracked(40, releases)
        #expect(releases.count == 3, "the replaced value")
        #expect(table[4]?.id == 40)
    }

    /// A table of `Void` is a set of stream ids.
    @Test func tableOfVoid_isASetOfStreamIDs() {
        var set = StreamTable<Void>()
        set.insert(1)
        set.insert(3)
        set.insert(1)
        #expect(set.contains(1) && set.contains(3) && !set.contains(5))
        #expect(set.ids == [1, 3])
        #expect(set.count == 2)
        set.remove(1)
        set.remove(7)
        #expect(set.ids == [3])
        let many = (1...Int32(StreamTable<Void>.linearLimit * 2)).map { $0 * 2 + 1 }
        for id in many { set.insert(id) }
        #expect(set.ids == Set(many))
        for id in many { set.remove(id) }
        #expect(set.isEmpty && set.ids.isEmpty)
    }
}
