"""Read-modify-write transactions against sqlited for SECONDS, from CLIENTS keep-alive connections (one thread each,
one request per connection at a time); prints the transactions completed per second and the retries.

Usage: transactions-client.py PORT CLIENTS SECONDS interactive|single
  interactive  POST /transactions, POST /transactions/{id} {"sql": "SELECT n FROM c WHERE id = ?"}, the client adds
               one, POST /transactions/{id} {"sql": "UPDATE c SET n = ? WHERE id = ?"}, POST .../commit: 4 requests;
               the whole transaction again on 503 (writer busy) or 404 (expired)
  single       the same read and write as one POST /transaction {"statements": [SELECT, UPDATE n = n + 1]}
Client k works on row k (the table c must hold rows 1..CLIENTS with n = 0). At the end every row's n must equal the
transactions that client completed, or the run fails (nothing lost, nothing counted twice).
Used by scripts/bench-transactions.sh.
"""
import json, socket, sys, threading, time

port, clients, seconds, mode = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
assert mode in ("interactive", "single"), mode


class Connection:
    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def post(self, path, body=b""):
        head = "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n" % (path, len(body))
        if body:
            head += "Content-Type: application/json\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + body)
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            rest += self.sock.recv(65536)
        self.buf = rest[length:]
        return int(head[9:12]), rest[:length]


done = [0] * clients
retries = [0] * clients
errors = []


def interactive(conn, row):
    while True:
        status, body = conn.post("/transactions")
        if status == 503:
            retries[row - 1] += 1
            continue
        assert status == 201, (status, body)
        path = "/transactions/" + json.loads(body)["id"]
        status, body = conn.post(path, b'{"sql": "SELECT n FROM c WHERE id = ?", "params": [%d], "shape": "arrays"}' % row)
        if status != 200:
            retries[row - 1] += 1
            continue
        n = json.loads(body)["rows"][0][0]
        status, body = conn.post(path, b'{"sql": "UPDATE c SET n = ? WHERE id = ?", "params": [%d, %d]}' % (n + 1, row))
        if status != 200:
            retries[row - 1] += 1
            continue
        status, body = conn.post(path + "/commit")
        if status == 200:
            return
        assert status in (503, 404), (status, body)
        retries[row - 1] += 1


def single(conn, row):
    body = (
        b'{"statements": [{"sql": "SELECT n FROM c WHERE id = ?", "params": [%d]}, '
        b'{"sql": "UPDATE c SET n = n + 1 WHERE id = ?", "params": [%d]}]}' % (row, row)
    )
    while True:
        status, answer = conn.post("/transaction", body)
        if status == 200:
            return
        assert status == 503, (status, answer)
        retries[row - 1] += 1


def work(row, start, stop):
    try:
        conn = Connection()
        start.wait()
        run = interactive if mode == "interactive" else single
        while time.monotonic() < stop[0]:
            run(conn, row)
            done[row - 1] += 1
    except Exception as error:  # reported below: the run fails
        errors.append(repr(error))


start = threading.Event()
stop = [0.0]
threads = [threading.Thread(target=work, args=(row, start, stop)) for row in range(1, clients + 1)]
for thread in threads:
    thread.start()
began = time.monotonic()
stop[0] = began + seconds
start.set()
for thread in threads:
    thread.join()
elapsed = time.monotonic() - began
if errors:
    print("errors:", errors[:3], file=sys.stderr)
    sys.exit(1)
check = Connection()
status, body = check.post("/query", b'{"sql": "SELECT id, n FROM c ORDER BY id", "shape": "arrays"}')
counts = {row: n for row, n in json.loads(body)["rows"]}
for row in range(1, clients + 1):
    if counts.get(row) != done[row - 1]:
        print("row %d: n = %s, %d transactions completed" % (row, counts.get(row), done[row - 1]), file=sys.stderr)
        sys.exit(1)
print("%.1f %d %d" % (sum(done) / elapsed, sum(done), sum(retries)))
