// What SQLite alone costs for one Idempotency-Key row, as sqlited's table holds it (issue #27): the lookup before a
// request, the row's INSERT and its share of the COMMIT, in transactions of 24 keys (a group). Run under callgrind by
// scripts/bench-key-row-instructions.sh, which prints instructions per key for each mode.
//
// Usage: key-row-cost MODE TRANSACTIONS DATABASE
//   MODE 0: BEGIN/COMMIT only; 1: + a lookup per key; 2: + a lookup and a one-row INSERT per key;
//   3: + a lookup per key and one 24-row INSERT per transaction.
// Counting starts at the middle transaction (the table is warm then) and stops at the end.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#define GROUP 24

static sqlite3 *db;

static void run(const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, error);
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    return statement;
}

static const char *response = "{\"changes\":1,\"last_insert_rowid\":123456}";
static const unsigned char digest[32];

// Binds one key's row from parameter `first` on (the values of a keyed /update's row).
static void bindRow(sqlite3_stmt *statement, int first, const char *key) {
    sqlite3_bind_text(statement, first, "", 0, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, first + 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, first + 2, "POST /update", -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(statement, first + 3, digest, 32, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, first + 4, 200);
    sqlite3_bind_blob(statement, first + 5, response, (int)strlen(response), SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, first + 6, 1700000000);
}

static void step(sqlite3_stmt *statement) {
    int code;
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (code != SQLITE_DONE) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(statement);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s MODE TRANSACTIONS DATABASE\n", argv[0]);
        return 2;
    }
    int mode = atoi(argv[1]);
    int transactions = atoi(argv[2]);
    unlink(argv[3]);
    if (sqlite3_open(argv[3], &db) != SQLITE_OK) return 1;
    run("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;");
    // sqlited's table (IdempotentWrite.schema).
    run("CREATE TABLE k(scope TEXT NOT NULL, key TEXT NOT NULL, request TEXT NOT NULL, body_sha256 BLOB NOT NULL, "
        "status INTEGER NOT NULL, response BLOB NOT NULL, created INTEGER NOT NULL, PRIMARY KEY(scope, key)) "
        "WITHOUT ROWID");
    sqlite3_stmt *lookup =
        prepare("SELECT request, body_sha256, status, response, created FROM k WHERE scope = ? AND key = ?");
    sqlite3_stmt *insertOne = prepare("INSERT INTO k VALUES (?, ?, ?, ?, ?, ?, ?)");
    char sql[4096] = "INSERT INTO k VALUES ";
    for (int i = 0; i < GROUP; i++) strcat(sql, i ? ", (?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, ?)");
    sqlite3_stmt *insertGroup = prepare(sql);
    char key[64];
    long next = 0;
    for (int t = 0; t < transactions; t++) {
        if (t == transactions / 2) CALLGRIND_ZERO_STATS;
        run("BEGIN");
        for (int i = 0; i < GROUP && mode >= 1; i++) {
            // Keys as the benchmark's (a prefix and a counter).
            snprintf(key, sizeof key, "5f3a9c01e2b4-%ld", next + i);
            sqlite3_bind_text(lookup, 1, "", 0, SQLITE_TRANSIENT);
            sqlite3_bind_text(lookup, 2, key, -1, SQLITE_TRANSIENT);
            step(lookup);
            if (mode == 2) {
                bindRow(insertOne, 1, key);
                step(insertOne);
            } else if (mode == 3) {
                bindRow(insertGroup, 1 + 7 * i, key);
            }
        }
        if (mode == 3) step(insertGroup);
        run("COMMIT");
        next += GROUP;
    }
    CALLGRIND_DUMP_STATS;
    sqlite3_close(db);
    return 0;
}
