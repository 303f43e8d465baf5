#!/usr/bin/env bash
# Crash test for group commit: N rounds of 64 concurrent writers (each write a unique key) against the real
# sqlited, SIGKILL at a random moment (50-600 ms in), restart, then check that every write answered 200 is in the
# database and that PRAGMA integrity_check is ok. Prints rounds / acknowledged / lost; exits 1 if anything was lost.
#
# Usage: scripts/crash-test.sh [N]       (rounds, default 20)
# Environment: SQLITED=path to the binary (default: the debug build, .build/debug/sqlited).
set -euo pipefail
ROUNDS=${1:-20}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rounds]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SQLITED=${SQLITED:-$ROOT/.build/debug/sqlited}
[[ -x $SQLITED ]] || { echo "crash-test: no sqlited at $SQLITED (build it, or set SQLITED)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "crash-test: python3 is required" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-crash.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
exec python3 - "$SQLITED" "$WORK" "$ROUNDS" <<'PY'
import http.client, json, os, random, signal, subprocess, sys, threading, time

binary, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
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
            return process, host, int(port)
        if not line and process.poll() is not None:
            break
    raise SystemExit("crash-test: sqlited did not start")

def post(connection, path, body):
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, json.loads(response.read())

total_acknowledged = total_lost = 0
for round_number in range(rounds):
    process, host, port = start()
    setup = http.client.HTTPConnection(host, port, timeout=10)
    status, _ = post(setup, "/update", {"sql": "CREATE TABLE IF NOT EXISTS w(k TEXT PRIMARY KEY)"})
    assert status == 200, status
    setup.close()
    acknowledged, lock = set(), threading.Lock()

    def writer(number):
        connection = http.client.HTTPConnection(host, port, timeout=5)
        sequence = 0
        try:
            while True:
                key = f"r{round_number}-w{number}-{sequence}"
                sequence += 1
                status, _ = post(connection, "/update", {"sql": "INSERT INTO w(k) VALUES (?)", "params": [key]})
                if status != 200:
                    return
                with lock:
                    acknowledged.add(key)
        except Exception:
            return

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(64)]
    for thread in threads:
        thread.start()
    time.sleep(random.uniform(0.05, 0.6))
    process.send_signal(signal.SIGKILL)
    process.wait()
    for thread in threads:
        thread.join()

    process, host, port = start()
    connection = http.client.HTTPConnection(host, port, timeout=30)
    status, body = post(connection, "/query", {"sql": "SELECT k FROM w WHERE k LIKE ?",
                                                "params": [f"r{round_number}-%"], "shape": "arrays",
                                                "max_rows": 100000})
    assert status == 200, body
    present = {row[0] for row in body["rows"]}
    lost = acknowledged - present
    status, body = post(connection, "/query", {"sql": "PRAGMA integrity_check", "shape": "arrays"})
    integrity = body["rows"][0][0] if status == 200 else body
    connection.close()
    process.send_signal(signal.SIGTERM)
    process.wait()
    total_acknowledged += len(acknowledged)
    total_lost += len(lost)
    print(f"round {round_number + 1}/{rounds}: acknowledged {len(acknowledged)}, lost {len(lost)}, "
          f"integrity_check {integrity}", file=sys.stderr)
    if integrity != "ok":
        print(f"crash-test: integrity_check failed in round {round_number + 1}: {integrity}")
        sys.exit(1)

print(f"rounds: {rounds}  acknowledged: {total_acknowledged}  lost: {total_lost}")
sys.exit(1 if total_lost else 0)
PY
