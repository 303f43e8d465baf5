"""Shared by the benchmark clients in this folder (query-client.py, update-client.py): reading one HTTP/1.1 answer."""


def read_response(s, buf):
    """Reads one answer with a Content-Length from socket `s` (after the bytes already in `buf`), asserts it is a
    200, and returns the bytes received past it."""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(rest) < length:
        rest += s.recv(65536)
    assert head.startswith(b"HTTP/1.1 200"), head
    return rest[length:]
