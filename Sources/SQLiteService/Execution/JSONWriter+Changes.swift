extension JSONWriter {
    /// The `changes` and `last_insert_rowid` members of a writing statement's result (`null` when no row was
    /// inserted), whichever backend ran it.
    mutating func writeChanges(_ changes: Int, lastInsertRowID: Int64?, int64AsString: Bool) {
        key("changes")
        writeInt64(Int64(changes), asStringIfUnsafe: false)
        key("last_insert_rowid")
        if let lastInsertRowID {
            writeInt64(lastInsertRowID, asStringIfUnsafe: int64AsString)
        } else {
            writeNull()
        }
    }
}
