#include <sqlite3.h>
static inline sqlite3_destructor_type csqliteraw_transient(void) { return SQLITE_TRANSIENT; }
