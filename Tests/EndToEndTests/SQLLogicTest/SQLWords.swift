/// A rough SQL word scanner, enough to tell which objects a statement names or creates.
///
/// It knows identifiers (bare, `"quoted"`, `` `quoted` ``, `[quoted]`), skips string literals and comments, and
/// keeps `.` so `main.t1` reads as schema and name. It is not a parser: it serves the sqllogictest runner's
/// "skip records that depend on a refused object" rule.
enum SQLWords {
    enum Token: Equatable {
        /// An identifier or keyword, lowercased; `quoted` when written in quotes (then never a keyword).
        case word(String, quoted: Bool)
        case punctuation(Character)
    }

    static func tokens(in sql: String) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(sql)
        var index = 0
        func isWordCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_" || character == "$"
                || !character.isASCII
        }
        func readQuoted(until closing: Character) -> String {
            var text = ""
            index += 1
            while index < characters.count {
                let character = characters[index]
                index += 1
                if character == closing {
                    // A doubled closing quote is an escaped quote inside the name (not for `]`).
                    if closing != "]", index < characters.count, characters[index] == closing {
                        text.append(character)
                        index += 1
                        continue
                    }
                    break
                }
                text.append(character)
            }
            return text
        }
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                index += 2
                while index + 1 < characters.count, !(characters[index] == "*" && characters[index + 1] == "/") {
                    index += 1
                }
                index += 2
            } else if character == "'" {
                _ = readQuoted(until: "'")
            } else if character == "\"" || character == "`" {
                tokens.append(.word(readQuoted(until: character).lowercased(), quoted: true))
            } else if character == "[" {
                tokens.append(.word(readQuoted(until: "]").lowercased(), quoted: true))
            } else if isWordCharacter(character) {
                var word = ""
                while index < characters.count, isWordCharacter(characters[index]) {
                    word.append(characters[index])
                    index += 1
                }
                tokens.append(.word(word.lowercased(), quoted: false))
            } else {
                tokens.append(.punctuation(character))
                index += 1
            }
        }
        return tokens
    }

    /// Every identifier-like word in the SQL, lowercased.
    static func words(in sql: String) -> Set<String> {
        Set(
            tokens(in: sql).compactMap {
                if case .word(let word, _) = $0 { return word }
                return nil
            }
        )
    }

    /// Names (lowercased, without schema) of the tables, views, indexes and triggers the SQL's CREATE statements
    /// would make.
    static func createdObjectNames(in sql: String) -> Set<String> {
        let tokens = tokens(in: sql)
        var names: Set<String> = []
        var index = 0
        func keyword(at position: Int) -> String? {
            guard position < tokens.count, case .word(let word, let quoted) = tokens[position], !quoted else {
                return nil
            }
            return word
        }
        while index < tokens.count {
            guard keyword(at: index) == "create" else {
                index += 1
                continue
            }
            var position = index + 1
            while let word = keyword(at: position), ["temp", "temporary", "unique", "virtual"].contains(word) {
                position += 1
            }
            guard let kind = keyword(at: position), ["table", "view", "index", "trigger"].contains(kind) else {
                index += 1
                continue
            }
            position += 1
            if keyword(at: position) == "if", keyword(at: position + 1) == "not",
                keyword(at: position + 2) == "exists"
            {
                position += 3
            }
            if position + 2 < tokens.count, tokens[position + 1] == .punctuation(".") {
                position += 2  // schema-qualified: keep the object name
            }
            if position < tokens.count, case .word(let name, _) = tokens[position] {
                names.insert(name)
            }
            index = position + 1
        }
        return names
    }
}
