#!/usr/bin/env bash
# Crash test for safe retries (Idempotency-Key): 64 writers against the real sqlited, each write an INSERT under a
# unique key, retried with the same key until it gets an answer (a broken connection, a refused one while the
# server is down, 409 IDEMPOTENCY_IN_PROGRESS or 503 are all retried), while the server is killed with SIGKILL at a
# random moment (100-700 ms after each start) and restarted, N times. Afterwards every key's row must exist exactly
# once (the table has no unique constraint: a write run twice would show as two rows), each key is stored once in
# the server's table, and PRAGMA integrity_check is ok. Prints kills / writes / retries / replays / lost /
# duplicated; exits 1 if anything was lost or duplicated.
#
# Usage: scripts/crash-test-retries.sh [N]       (kills, default 10)
# Environment: SQLITED=path to the binary (default: the debug build, .build/debug/sqlited).
set -euo pipefail
KILLS=${1:-10}
[[ $KILLS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [kills]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SQLITED=${SQLITED:-$ROOT/.build/debug/sqlited}
[[ -x $SQLITED ]] || { echo "crash-test-retries: no sqlited at $SQLITED (build it, or set SQLITED)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "crash-test-retries: python3 is required" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-crash-retries.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
exec python3 - "$SQLITED" "$WORK" "$KILLS" <<'PY'
import http.client, json, os, random, signal, sqlite3, subprocess, sys, threading, time

binary, work, kills = sys.argv[1], sys.argv[2], int(sys.argv[3])
database = os.path.join(work, "db.sqlite")

def start():
    process = subprocess.Popen(
        [binary, "--database", database, "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # the listening line is on stderr
    deadline = time.time() + 30
    while time.time() < deadline:
        line = process.stdout.readline()
        if line.startswith("sqlited: listening on "):
            url = line.split()[-1]
            host, port = url.split("//")[1].rstrip("/").split(":")
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, (host, int(port))
        if not line and process.poll() is not None:
            break
    raise SystemExit("crash-test-retries: sqlited did not start")

process, address = start()
current = {"address": address}
setup = http.client.HTTPConnection(*address, timeout=10)
setup.request("POST", "/update", json.dumps({"sql": "CREATE TABLE w(id INTEGER PRIMARY KEY, k TEXT NOT NULL)"}),
              {"Content-Type": "application/json"})
assert setup.getresponse().status == 200
setup.close()

lock = threading.Lock()
attempted, counts = [], {"retries": 0, "replays": 0, "writes": 0}
stop = threading.Event()

def writer(number):
    sequence = 0
    connection, connected_to = None, None
    while not stop.is_set():
        key = f"w{number}-{sequence}"
        sequence += 1
        with lock:
            attempted.append(key)
        body = json.dumps({"sql": "INSERT INTO w(k) VALUES (?)", "params": [key]})
        while True:
            address = current["address"]
            try:
                if connection is None or connected_to != address:
                    if connection is not None:
                        connection.close()
                    connection, connected_to = http.client.HTTPConnection(*address, timeout=5), address
                connection.request("POST", "/update", body,
                                   {"Content-Type": "application/json", "Idempotency-Key": key})
                response = connection.getresponse()
                answer = response.read()
                if response.status == 200:
                    with lock:
                        counts["writes"] += 1
                        counts["replays"] += response.getheader("Idempotent-Replayed") == "true"
                    break
                if response.status not in (409, 503):
                    raise SystemExit(f"crash-test-retries: {key}: {response.status} {answer!r}")
            except (OSError, http.client.HTTPException):
                connection = None
            with lock:
                counts["retries"] += 1
            time.sleep(0.02)

threads = [threading.Thread(target=writer, args=(n,)) for n in range(64)]
for thread in threads:
    thread.start()
for kill in range(kills):
    time.sleep(random.uniform(0.1, 0.7))
    process.send_signal(signal.SIGKILL)
    process.wait()
    process, current["address"] = start()
    print(f"kill {kill + 1}/{kills}: {counts['writes']} writes answered so far", file=sys.stderr)
time.sleep(0.3)
stop.set()
for thread in threads:
    thread.join()
process.send_signal(signal.SIGTERM)
process.wait()

db = sqlite3.connect(database)
rows = dict(db.execute("SELECT k, count(*) FROM w GROUP BY k"))
stored = dict(db.execute("SELECT key, count(*) FROM _sqlited_idempotency GROUP BY key"))
integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
db.close()
lost = [key for key in attempted if key not in rows]
duplicated = [key for key, count in rows.items() if count != 1]
unstored = [key for key in attempted if stored.get(key) != 1]
print(f"kills: {kills}  writes: {len(attempted)}  retries: {counts['retries']}  replays: {counts['replays']}  "
      f"lost: {len(lost)}  duplicated: {len(duplicated)}  keys not stored once: {len(unstored)}  "
      f"integrity_check: {integrity}")
sys.exit(1 if lost or duplicated or unstored or integrity != "ok" else 0)
PY
