"""Sends exactly N point lookups (random ids in 1..100000, fixed seed) over 4 keep-alive connections, one
request per connection at a time, and checks every answer is a 200.

Usage: query-client.py PORT N [query|table-row]
  query      POST /query {"sql": "SELECT * FROM t WHERE id = ?", "params": [id]} (the default; works against
             sqlited and reference-server query alike)
  table-row  GET /tables/t/rows/{id}, the same lookup through the Tables API (sqlited only)
Used by scripts/bench-http-instructions.sh.
"""
import socket, sys, random
from http1_response import read_response
port = int(sys.argv[1]); n = int(sys.argv[2]); conns = 4
workload = sys.argv[3] if len(sys.argv) > 3 else "query"
assert workload in ("query", "table-row"), workload
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(conns)]
random.seed(1)
def req(i):
    if workload == "table-row":
        return ("GET /tables/t/rows/%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (random.randint(1, 100000), port)).encode()
    body = '{"sql": "SELECT * FROM t WHERE id = ?", "params": [%d]}' % random.randint(1, 100000)
    return ("POST /query HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (port, len(body), body)).encode()
bufs = [b""] * conns
for i in range(n // conns):
    for k, s in enumerate(socks):
        s.sendall(req(i))
    for k, s in enumerate(socks):
        bufs[k] = read_response(s, bufs[k])
print("done", n)
