#!/usr/bin/env python3
"""HTTP/2 frame-level scenarios against a running sqlited, driven by the `h2` library (PyPI), a client nobody here
wrote. Usage: h2_scenarios.py SCENARIO PORT [ARG]. Prints one JSON object on stdout: what the client saw (statuses,
order of responses, stream resets, the GOAWAY error code, whether the server closed the connection). The Swift tests
(HTTP2FrameTests) decide what is right; this script only reports.
"""
import json
import os
import signal
import socket
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import hpack

SLOW_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2500000) SELECT count(*) AS n FROM c"
)


class Client:
    def __init__(self, port, window=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        if window is not None:
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.flush()
        self.result = {
            "statuses": {},
            "bodies": {},
            "order": [],
            "resets": {},
            "goaway": None,
            "last_stream_id": None,
            "closed": False,
        }
        self.auto_ack = True

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def send_raw(self, data):
        self.sock.sendall(data)

    def request(self, method, path, body=None, end=True, headers=()):
        stream_id = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":path", path), (":scheme", "http"), (":authority", "localhost")]
        if body is not None:
            fields.append(("content-type", "application/json"))
        fields.extend(headers)
        self.conn.send_headers(stream_id, fields, end_stream=end and body is None)
        if body is not None:
            self.conn.send_data(stream_id, body.encode(), end_stream=end)
        self.flush()
        return stream_id

    def query(self, sql):
        return self.request("POST", "/query", json.dumps({"sql": sql}))

    def pump(self, done, timeout=10.0):
        """Reads and handles events until done(self) is true, the connection closes, or the timeout passes."""
        deadline = time.monotonic() + timeout
        while not done(self) and not self.result["closed"]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.result["timed_out"] = True
                return
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                self.result["timed_out"] = True
                return
            except ConnectionResetError:
                self.result["closed"] = True
                self.result["reset"] = True
                return
            if not data:
                self.result["closed"] = True
                return
            try:
                events = self.conn.receive_data(data)
            except h2.exceptions.ProtocolError as error:
                self.result["client_protocol_error"] = str(error)
                events = []
            for event in events:
                self.handle(event)
            self.flush()

    def handle(self, event):
        result = self.result
        if isinstance(event, h2.events.ResponseReceived):
            result["statuses"][event.stream_id] = int(dict(event.headers)[":status"])
        elif isinstance(event, h2.events.DataReceived):
            result["bodies"].setdefault(event.stream_id, "")
            result["bodies"][event.stream_id] += event.data.decode("utf-8", "replace")
            if self.auto_ack:
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            result["order"].append(event.stream_id)
        elif isinstance(event, h2.events.StreamReset):
            result["resets"][event.stream_id] = int(event.error_code)
        elif isinstance(event, h2.events.ConnectionTerminated):
            result["goaway"] = int(event.error_code)
            result["last_stream_id"] = event.last_stream_id

    def ended(self, *stream_ids):
        return lambda client: all(
            s in client.result["order"] or s in client.result["resets"] for s in stream_ids
        )

    def drain_until_closed(self, timeout=10.0):
        self.pump(lambda client: False, timeout)

    def report(self, **extra):
        result = dict(self.result)
        result.update(extra)
        result["statuses"] = {str(k): v for k, v in result["statuses"].items()}
        result["bodies"] = {str(k): v for k, v in result["bodies"].items()}
        result["resets"] = {str(k): v for k, v in result["resets"].items()}
        print(json.dumps(result))


class RawFrames:
    """Reads frames off a socket without a connection state machine: statuses (HPACK-decoded), DATA, GOAWAY."""

    def __init__(self, sock):
        self.sock = sock
        self.decoder = hpack.Decoder()
        self.buffer = b""
        self.result = {"statuses": {}, "bodies": {}, "order": [], "resets": {}, "goaway": None,
                       "last_stream_id": None, "closed": False, "frames": []}

    def read_until_closed(self, timeout):
        self.read_until(lambda raw: False, timeout)

    def read_until(self, done, timeout):
        """Reads frames until done(self) is true, the connection closes, or the timeout passes."""
        deadline = time.monotonic() + timeout
        while not done(self) and time.monotonic() < deadline:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                self.result["timed_out"] = True
                return
            except ConnectionResetError:
                data = b""
            if not data:
                self.result["closed"] = True
                return
            self.buffer += data
            self.parse()

    def parse(self):
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[0:3], "big")
            if len(self.buffer) < 9 + length:
                return
            frame_type, flags = self.buffer[3], self.buffer[4]
            stream_id = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
            payload = self.buffer[9 : 9 + length]
            self.buffer = self.buffer[9 + length :]
            self.result["frames"].append([frame_type, stream_id, flags])
            if frame_type == 0x1:
                fields = dict(self.decoder.decode(payload))
                status = fields.get(":status", fields.get(b":status"))
                if status is not None:
                    self.result["statuses"][stream_id] = int(status)
            elif frame_type == 0x0:
                self.result["bodies"].setdefault(stream_id, "")
                self.result["bodies"][stream_id] += payload.decode("utf-8", "replace")
            elif frame_type == 0x3:
                self.result["resets"][stream_id] = int.from_bytes(payload[0:4], "big")
            elif frame_type == 0x7:
                self.result["last_stream_id"] = int.from_bytes(payload[0:4], "big") & 0x7FFFFFFF
                self.result["goaway"] = int.from_bytes(payload[4:8], "big")
            if frame_type in (0x0, 0x1) and flags & 0x1:
                self.result["order"].append(stream_id)


def frame(frame_type, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([frame_type, flags]) + struct.pack(">I", stream_id) + payload


def acknowledged_connection(port):
    """A raw connection that has sent the preface and its SETTINGS, read the server's SETTINGS and acknowledged them,
    as every real client does (libnghttp2 applies its own SETTINGS only from the ACK on)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(0x4, 0x0, 0))
    raw = RawFrames(sock)
    raw.read_until(lambda r: any(f[0] == 0x4 and not f[2] & 0x1 for f in r.result["frames"]), timeout=5)
    sock.sendall(frame(0x4, 0x1, 0))
    return sock, raw


def request_block(encoder, method, path):
    return encoder.encode(
        [(":method", method), (":path", path), (":scheme", "http"), (":authority", "localhost")]
        + ([("content-type", "application/json")] if method == "POST" else [])
    )


def send_flood(client, frames):
    """Sends frames as fast as the server takes them; a server that closes the connection mid-way is fine."""
    try:
        client.send_raw(b"".join(frames))
    except (BrokenPipeError, ConnectionResetError):
        client.result["closed"] = True


def main():
    scenario, port = sys.argv[1], int(sys.argv[2])
    argument = sys.argv[3] if len(sys.argv) > 3 else None

    if scenario == "multiplex":
        # One connection: a slow query on stream 1, then a point select on stream 3.
        client = Client(port)
        slow = client.query(SLOW_SQL)
        time.sleep(0.05)
        fast = client.query("SELECT 1 AS one")
        client.pump(client.ended(slow, fast), timeout=20)
        client.report(slow=slow, fast=fast)
    elif scenario == "many":
        # 50 requests at once on one connection, each its own answer.
        client = Client(port)
        streams = [client.query("SELECT %d AS n" % n) for n in range(50)]
        client.pump(client.ended(*streams))
        client.report(streams=streams)
    elif scenario == "refused":
        # More streams than SETTINGS_MAX_CONCURRENT_STREAMS, opened before the server's SETTINGS arrive (the
        # client library enforces the limit once it knows it), each waiting for a body that never comes.
        client = Client(port)
        count = int(argument or "110")
        streams = [client.request("POST", "/update", body=None, end=False) for _ in range(count)]
        client.pump(lambda c: len(c.result["resets"]) >= count - 100, timeout=5)
        client.report(streams=streams)
    elif scenario == "refused_after_ack":
        # argument: the server's limit. After the SETTINGS ACK, the limit's worth of POSTs waiting for a body, then
        # five more HEADERS frames; then the first stream's body. RFC 9113 §5.1.2: the five are refused
        # (RST_STREAM), the connection and the open streams go on.
        limit = int(argument or "100")
        sock, raw = acknowledged_connection(port)
        encoder = hpack.Encoder()
        streams = [1 + 2 * index for index in range(limit + 5)]
        sock.sendall(b"".join(frame(0x1, 0x4, s, request_block(encoder, "POST", "/query")) for s in streams))
        raw.read_until(lambda r: len(r.result["resets"]) >= 5 or r.result["goaway"] is not None, timeout=5)
        body = json.dumps({"sql": "SELECT 1 AS one"}).encode()
        try:
            sock.sendall(frame(0x0, 0x1, 1, body))
        except (BrokenPipeError, ConnectionResetError):
            raw.result["closed"] = True
        raw.read_until(lambda r: 1 in r.result["order"] or r.result["goaway"] is not None, timeout=5)
        raw.result.pop("frames")
        print(json.dumps({**raw.result, "streams": streams,
                          "statuses": {str(k): v for k, v in raw.result["statuses"].items()},
                          "bodies": {str(k): v for k, v in raw.result["bodies"].items()},
                          "resets": {str(k): v for k, v in raw.result["resets"].items()}}))
    elif scenario in ("skipped_stream_id", "closed_stream_id"):
        # Stream 5 answered, then a HEADERS frame on stream 3 (never opened) or on stream 5 again. RFC 9113 §5.1.1
        # and §5.1: a connection error, PROTOCOL_ERROR (a skipped id) or STREAM_CLOSED (a closed stream).
        sock, raw = acknowledged_connection(port)
        encoder = hpack.Encoder()
        sock.sendall(frame(0x1, 0x5, 5, request_block(encoder, "GET", "/health")))
        raw.read_until(lambda r: 5 in r.result["order"], timeout=5)
        again = 3 if scenario == "skipped_stream_id" else 5
        try:
            sock.sendall(frame(0x1, 0x5, again, request_block(encoder, "GET", "/health")))
        except (BrokenPipeError, ConnectionResetError):
            raw.result["closed"] = True
        raw.read_until_closed(timeout=5)
        raw.result.pop("frames")
        print(json.dumps({**raw.result, "statuses": {str(k): v for k, v in raw.result["statuses"].items()},
                          "bodies": {}, "resets": {str(k): v for k, v in raw.result["resets"].items()}}))
    elif scenario == "rapid_reset":
        client = Client(port)
        frames = []
        encoder = hpack.Encoder()
        block = encoder.encode(
            [(":method", "GET"), (":path", "/health"), (":scheme", "http"), (":authority", "localhost")]
        )
        for index in range(int(argument or "2000")):
            stream_id = 1 + 2 * index
            frames.append(frame(0x1, 0x5, stream_id, block))  # HEADERS, END_STREAM | END_HEADERS
            frames.append(frame(0x3, 0x0, stream_id, struct.pack(">I", 8)))  # RST_STREAM CANCEL
        send_flood(client, frames)
        client.drain_until_closed()
        client.report()
    elif scenario in ("ping_flood", "settings_flood", "window_update_flood", "empty_data_flood"):
        client = Client(port)
        count = int(argument or "5000")
        if scenario == "ping_flood":
            frames = [frame(0x6, 0x0, 0, struct.pack(">Q", n)) for n in range(count)]
        elif scenario == "settings_flood":
            frames = [frame(0x4, 0x0, 0, struct.pack(">HI", 0x3, 100)) for _ in range(count)]
        elif scenario == "window_update_flood":
            frames = [frame(0x8, 0x0, 0, struct.pack(">I", 1)) for _ in range(count)]
        else:
            stream_id = client.request("POST", "/update", body=None, end=False)
            frames = [frame(0x0, 0x0, stream_id, b"") for _ in range(count)]
        send_flood(client, frames)
        client.drain_until_closed()
        client.report()
    elif scenario == "continuation_flood":
        client = Client(port)
        encoder = hpack.Encoder()
        block = encoder.encode(
            [(":method", "GET"), (":path", "/health"), (":scheme", "http"), (":authority", "localhost")]
            + [("x-filler-%d" % n, "v") for n in range(60)]
        )
        pieces = [block[i : i + 2] for i in range(0, len(block), 2)]
        frames = [frame(0x1, 0x1, 1, pieces[0])]  # HEADERS, END_STREAM, no END_HEADERS
        for index, piece in enumerate(pieces[1:]):
            last = index == len(pieces) - 2
            frames.append(frame(0x9, 0x4 if last else 0x0, 1, piece))
        send_flood(client, frames)
        client.drain_until_closed()
        client.report(continuations=len(pieces) - 1)
    elif scenario == "big_header":
        client = Client(port)
        stream = client.request("GET", "/health", headers=[("x-big", "a" * int(argument or "20000"))])
        client.pump(client.ended(stream))
        ok = client.request("GET", "/health")
        client.pump(client.ended(ok))
        client.report(stream=stream, after=ok)
    elif scenario == "many_headers":
        client = Client(port)
        stream = client.request("GET", "/health", headers=[("x-h%d" % n, "v") for n in range(int(argument or "150"))])
        client.pump(client.ended(stream))
        client.report(stream=stream)
    elif scenario == "hpack_table_size":
        client = Client(port)
        client.pump(lambda c: c.conn.remote_settings.max_concurrent_streams != 2**32 + 1, timeout=2)
        client.conn.encoder.header_table_size = 1 << 20
        client.request("GET", "/health")
        client.drain_until_closed()
        client.report()
    elif scenario == "big_body":
        # argument: body length; sent without content-length, in DATA frames.
        client = Client(port)
        size = int(argument)
        stream = client.conn.get_next_available_stream_id()
        client.conn.send_headers(
            stream,
            [(":method", "POST"), (":path", "/query"), (":scheme", "http"), (":authority", "localhost"),
             ("content-type", "application/json")],
        )
        body = json.dumps({"sql": "SELECT ?", "params": ["x" * size]}).encode()
        sent = 0
        try:
            while sent < len(body):
                chunk = body[sent : sent + 8192]
                window = client.conn.local_flow_control_window(stream)
                if window < len(chunk):
                    client.pump(lambda c: c.conn.local_flow_control_window(stream) >= len(chunk)
                                or stream in c.result["statuses"] or stream in c.result["resets"], timeout=5)
                    if stream in client.result["statuses"] or stream in client.result["resets"]:
                        break
                client.conn.send_data(stream, chunk, end_stream=sent + len(chunk) >= len(body))
                client.flush()
                sent += len(chunk)
        except h2.exceptions.StreamClosedError:
            pass
        client.pump(client.ended(stream))
        client.report(stream=stream)
    elif scenario == "declared_big_body":
        client = Client(port)
        stream = client.request("POST", "/query", body=None, end=False, headers=[("content-length", argument)])
        client.pump(lambda c: stream in c.result["statuses"], timeout=5)
        client.report(stream=stream)
    elif scenario == "stalled_body":
        client = Client(port)
        stream = client.request("POST", "/query", body=None, end=False, headers=[("content-type", "application/json")])
        client.conn.send_data(stream, b'{"sql": ')
        client.flush()
        started = time.monotonic()
        client.pump(client.ended(stream), timeout=10)
        client.report(stream=stream, seconds=time.monotonic() - started)
    elif scenario == "idle":
        client = Client(port)
        started = time.monotonic()
        client.drain_until_closed(timeout=10)
        client.report(seconds=time.monotonic() - started)
    elif scenario == "flow_control":
        # A small window and no WINDOW_UPDATE: the server sends no more than the window, then the rest once the
        # client reads on.
        client = Client(port, window=16384)
        client.auto_ack = False
        rows = int(argument or "20000")
        sql = (
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) "
            "SELECT x, 'row number ' || x AS label FROM c" % rows
        )
        stream = client.query(sql)
        client.pump(lambda c: False, timeout=1.5)
        before = len(client.result["bodies"].get(stream, ""))
        client.result.pop("timed_out", None)
        client.auto_ack = True
        client.conn.acknowledge_received_data(before, stream) if before else None
        client.flush()
        client.pump(client.ended(stream), timeout=20)
        body = client.result["bodies"].get(stream, "")
        client.result["bodies"] = {}
        client.report(stream=stream, before_window_update=before, total=len(body),
                      rows=body.count("row number"), ended=stream in client.result["order"])
    elif scenario == "shutdown":
        # A slow query in progress, then SIGTERM to the server (pid in ARG): GOAWAY, the answer, then the close.
        # The h2 library refuses every frame after a GOAWAY, so the frames are read here, raw.
        client = Client(port)
        slow = client.query(SLOW_SQL)
        time.sleep(0.2)
        os.kill(int(argument), signal.SIGTERM)
        raw = RawFrames(client.sock)
        raw.read_until_closed(timeout=20)
        client.result.update(raw.result)
        client.report(slow=slow)
    else:
        print(json.dumps({"error": "unknown scenario " + scenario}))
        sys.exit(2)


if __name__ == "__main__":
    main()
