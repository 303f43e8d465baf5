import Testing

@Suite struct SQLWordsTests {
    /// CREATE statements yield the created object's name, whatever the kind, quoting or schema.
    @Test(arguments: [
        ("CREATE TEMP VIEW view2 AS SELECT x FROM t1", "view2"),
        ("create temporary table IF NOT EXISTS \"My Table\"(a)", "my table"),
        ("CREATE UNIQUE INDEX temp.idx1 ON t1(x)", "idx1"),
        ("CREATE TEMP TRIGGER [trg] AFTER INSERT ON t1 BEGIN SELECT 1; END", "trg"),
        ("CREATE VIRTUAL TABLE ft USING fts5(a)", "ft"),
    ])
    func createdObjectNames_findsName(sql: String, name: String) {
        #expect(SQLWords.createdObjectNames(in: sql) == [name])
    }

    /// Words come from identifiers only: string literals and comments are ignored, case is folded.
    @Test func words_ignoreLiteralsAndComments() {
        let words = SQLWords.words(in: "SELECT View2, 'view3' -- view4\n FROM t1 /* view5 */ WHERE [view6]=1")
        #expect(words.contains("view2"))
        #expect(words.contains("view6"))
        #expect(!words.contains("view3"))
        #expect(!words.contains("view4"))
        #expect(!words.contains("view5"))
        #expect(!words.contains("view"))
    }

    /// Statements that create nothing yield no names.
    @Test func createdObjectNames_emptyForOtherStatements() {
        #expect(SQLWords.createdObjectNames(in: "DROP VIEW view2").isEmpty)
        #expect(SQLWords.createdObjectNames(in: "SELECT 'CREATE TABLE x(a)'").isEmpty)
    }
}
