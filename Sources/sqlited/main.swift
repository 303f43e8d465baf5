import SQLiteEngine

print("sqlited (SQLite \(sqliteLibraryVersion))")
