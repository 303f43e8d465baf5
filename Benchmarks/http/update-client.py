"""Benchmarks/http/update-client.py PORT N plain|keyed [conns]: N POST /update single-row inserts over CONNS keep-alive connections,
one request per connection at a time (all connections sent before any answer is read), each answered 200."""
import socket, sys, os
from http1_response import read_response
port = int(sys.argv[1]); n = int(sys.argv[2]); mode = sys.argv[3]; conns = int(sys.argv[4]) if len(sys.argv) > 4 else 16
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(conns)]
prefix = os.urandom(6).hex()
body = '{"sql": "INSERT INTO w(v) VALUES (?)", "params": ["x"]}'
counter = 0
def req():
    global counter
    counter += 1
    key = "Idempotency-Key: %s-%d\r\n" % (prefix, counter) if mode == "keyed" else ""
    return ("POST /update HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (port, key, len(body), body)).encode()
bufs = [b""] * conns
sent = 0
while sent < n:
    batch = min(conns, n - sent)
    for i in range(batch):
        socks[i].sendall(req())
    for i in range(batch):
        bufs[i] = read_response(socks[i], bufs[i])
    sent += batch
