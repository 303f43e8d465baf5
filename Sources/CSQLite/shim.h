#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// Swift cannot call C variadic functions nor see macros that expand to casts,
// so the few pieces of libsqlite3's API that need them are wrapped here.

/// `sqlite3_db_config` for the options that take (int, int*).
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the bind call returns.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `SQLITE_STATIC`: the caller keeps the bound bytes alive until the statement is reset.
static inline sqlite3_destructor_type csqlite_static(void) {
    return SQLITE_STATIC;
}

/// `sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on)`: whether the library counts its memory use (before it is
/// initialized only).
static inline int csqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
