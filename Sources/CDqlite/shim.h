// libdqlite from the system (Debian: libdqlite-dev 1.11.1), never a vendored copy.
// Its header declares the node API (dqlite_node_*) and includes <sqlite3.h>; 1.11 has no public client API.
#pragma once
#include <dqlite.h>
