#!/usr/bin/env python3
"""Streamed results (NDJSON, CSV) against a running sqlited, read by clients nobody here wrote: Python's `csv` and
`json` modules, raw HTTP/1.1 over a socket, and PyPI's `h2` for HTTP/2. Usage: stream_scenarios.py SCENARIO PORT.
Each scenario checks what the contract (API.md, "Streaming results: NDJSON and CSV") says and prints one JSON object:
{"failures": [...], "seen": {...}}; the Swift tests (StreamingTests) expect no failures.
"""
import base64
import csv
import io
import json
import math
import socket
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

PORT = 0
# "cluster": the server is a cluster node, whose leader sends rows in parts, so a statement failing part way loses
# the rows of the part it failed in (fewer rows come before the error line).
CLUSTER = False
FAILURES = []
SEEN = {}


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


# MARK: HTTP/1.1 over a raw socket


def http1(method, path, body=None, headers=(), read_body=True, sock=None):
    """One request; returns (status, headers dict lower-case, body bytes, complete) where complete says whether a
    chunked body ended with its last chunk (False: the connection closed before it)."""
    own = sock is None
    if own:
        sock = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    data = body.encode() if isinstance(body, str) else body
    lines = [f"{method} {path} HTTP/1.1", "Host: localhost"]
    if data is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    lines += [f"{k}: {v}" for k, v in headers]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + (data or b""))
    reader = sock.makefile("rb")
    status_line = reader.readline()
    status = int(status_line.split()[1])
    fields = {}
    while True:
        line = reader.readline()
        if line in (b"\r\n", b""):
            break
        name, value = line.decode().split(":", 1)
        fields[name.strip().lower()] = value.strip()
    if not read_body:
        return status, fields, reader, sock
    content, complete = b"", True
    if fields.get("transfer-encoding") == "chunked":
        complete = False
        try:
            while True:
                size_line = reader.readline()
                if not size_line:
                    break
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    reader.readline()
                    complete = True
                    break
                chunk = reader.read(size)
                content += chunk
                if len(chunk) < size:
                    break
                reader.readline()
        except (ConnectionError, ValueError, socket.timeout):
            pass
    elif "content-length" in fields:
        content = reader.read(int(fields["content-length"]))
    if own:
        sock.close()
    return status, fields, content, complete


def query(sql, params=None, accept=None, **options):
    body = {"sql": sql, **options}
    if params is not None:
        body["params"] = params
    headers = [("Accept", accept)] if accept else []
    return http1("POST", "/query", json.dumps(body), headers)


def update(sql, params=None):
    body = {"sql": sql}
    if params is not None:
        body["params"] = params
    status, _, content, _ = http1("POST", "/update", json.dumps(body))
    check(status == 200, f"update {sql!r}: {status} {content!r}")


def metric(name):
    _, _, content, _ = http1("GET", "/metrics")
    for line in content.decode().splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def wait_for(condition, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# MARK: HTTP/2 with h2


class H2:
    def __init__(self, window=None):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=30)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        if window is not None:
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method, path, body=None, headers=()):
        stream_id = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":path", path), (":scheme", "http"), (":authority", "localhost")]
        if body is not None:
            fields.append(("content-type", "application/json"))
        fields.extend(headers)
        self.conn.send_headers(stream_id, fields, end_stream=body is None)
        if body is not None:
            self.conn.send_data(stream_id, body.encode(), end_stream=True)
        self.flush()
        return stream_id

    def response(self, stream_id, acknowledge=True, until=None):
        """Reads until the stream ends or is reset: {"status", "headers", "body", "ended", "reset"}."""
        result = {"status": None, "headers": {}, "body": b"", "ended": False, "reset": None}
        while not result["ended"] and result["reset"] is None:
            if until is not None and until(result):
                break
            data = self.sock.recv(65536)
            if not data:
                result["closed"] = True
                break
            for event in self.conn.receive_data(data):
                if getattr(event, "stream_id", None) != stream_id:
                    continue
                if isinstance(event, h2.events.ResponseReceived):
                    result["headers"] = dict(event.headers)
                    result["status"] = int(result["headers"][":status"])
                elif isinstance(event, h2.events.DataReceived):
                    result["body"] += event.data
                    if acknowledge:
                        self.conn.acknowledge_received_data(event.flow_controlled_length, stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    result["ended"] = True
                elif isinstance(event, h2.events.StreamReset):
                    result["reset"] = event.error_code
            self.flush()
        return result


# MARK: Values compared


def csv_field_matches(field, value):
    """A CSV field against the JSON value of the same cell (shape arrays)."""
    if value is None:
        return field == ""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return field == str(value)
    if isinstance(value, float):
        parsed = float(field)
        return parsed == value and math.copysign(1, parsed) == math.copysign(1, value) and ("." in field or "e" in field)
    if isinstance(value, dict):
        return field == value["base64"]
    if value in ("Infinity", "-Infinity") and field == value:
        return True
    return field == value


TRICKY_ROWS = [
    [1, "plain", 1.5, None],
    [2, "comma, inside", -0.0, {"base64": ""}],
    [3, 'quote " and "" twice', 1e300 * 1e10, {"base64": base64.b64encode(bytes(range(256))).decode()}],
    [4, "line\nfeed and\r\nCRLF and \r CR", -1e300 * 1e10, {"base64": "AA=="}],
    [5, "  leading and trailing spaces  ", 0.1, None],
    [6, "", 5e-324, None],
    [7, None, 1.7976931348623157e308, None],
    [8, "9223372036854775807", 123456789.125, None],
    [9, "ünïcödé ✓ 😀", 1e16, None],
    [10, "tab\there", 2.0, None],
]


def create_tricky_table():
    update("CREATE TABLE IF NOT EXISTS tricky(id INTEGER PRIMARY KEY, t TEXT, r REAL, b BLOB, i INTEGER)")
    update("DELETE FROM tricky")
    for row_id, text, real, blob in TRICKY_ROWS:
        real_sql = "?" if not math.isinf(real) else ("9e999" if real > 0 else "-9e999")
        params = [row_id, text] + ([real] if not math.isinf(real) else []) + [blob]
        update(f"INSERT INTO tricky(id, t, r, b) VALUES (?, ?, {real_sql}, ?)", params)
    update("UPDATE tricky SET i = CASE id WHEN 1 THEN 9223372036854775807 WHEN 2 THEN -9223372036854775808 "
           "WHEN 3 THEN 0 WHEN 4 THEN 9007199254740993 ELSE id END")


def scenario_csv_matches_json():
    create_tricky_table()
    sql = "SELECT id, t, r, b, i, NULL AS n, '' AS e, x'' AS eb FROM tricky ORDER BY id"
    status, fields, content, complete = query(sql, shape="arrays")
    check(status == 200, f"JSON: {status}")
    expected = json.loads(content)
    for path, label in (("/query", "query"), ("/tables/tricky/rows?_shape=arrays", "tables")):
        if label == "query":
            status, fields, content, complete = query(sql, accept="text/csv")
            columns, rows = expected["columns"], expected["rows"]
        else:
            status, fields, content, complete = http1("GET", path, headers=[("Accept", "text/csv")])
            _, _, json_content, _ = http1("GET", "/tables/tricky/rows?_shape=arrays&_limit=1000")
            page = json.loads(json_content)
            columns, rows = page["columns"], page["rows"]
        check(status == 200, f"{label} CSV: {status}")
        check(fields.get("content-type") == "text/csv; charset=utf-8; header=present", f"{label}: {fields}")
        check(complete, f"{label}: CSV not complete")
        check(content.endswith(b"\r\n"), f"{label}: the last record does not end with CRLF")
        records = list(csv.reader(io.StringIO(content.decode("utf-8"), newline="")))
        check(records[0] == columns, f"{label}: header {records[0]} != {columns}")
        check(len(records) - 1 == len(rows), f"{label}: {len(records) - 1} records for {len(rows)} rows")
        for record, row in zip(records[1:], rows):
            check(len(record) == len(row), f"{label}: record {record} has not the row's width {row}")
            for field, value in zip(record, row):
                check(csv_field_matches(field, value), f"{label}: CSV field {field!r} != JSON value {value!r}")
        SEEN[label + "_records"] = len(records) - 1
    # NULL is an empty unquoted field, empty text and an empty blob are "" (csv cannot tell them apart).
    status, _, content, _ = query("SELECT NULL AS n, '' AS e, x'' AS b, 'a' AS a", accept="text/csv")
    check(content == b'n,e,b,a\r\n,"","",a\r\n', f"NULL vs empty: {content!r}")


def scenario_ndjson_matches_json():
    create_tricky_table()
    for shape in ("objects", "arrays"):
        sql = "SELECT id, t, r, b, i, NULL AS n FROM tricky ORDER BY id"
        _, _, content, _ = query(sql, shape=shape, int64_as_string=True)
        expected = json.loads(content)
        status, fields, content, complete = query(sql, accept="application/x-ndjson", shape=shape,
                                                  int64_as_string=True)
        check(status == 200 and complete, f"NDJSON {shape}: {status} {complete}")
        check(fields.get("content-type") == "application/x-ndjson", f"NDJSON content type: {fields}")
        check(content.endswith(b"\n"), "the last NDJSON line does not end with a newline")
        lines = [json.loads(line) for line in content.decode().split("\n")[:-1]]
        check(lines[0] == {"columns": expected["columns"], "types": expected["types"]}, f"head {lines[0]}")
        check(lines[1:-1] == expected["rows"], f"{shape} rows differ: {lines[1:-1]} != {expected['rows']}")
        check(lines[-1] == {"rows": len(expected["rows"])}, f"last line {lines[-1]}")
    # max_rows is the request's own, not capped by the rows-per-response limit; an empty result.
    _, _, content, _ = query("SELECT value FROM generate_series(1, 10)" if False else
                             "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) "
                             "SELECT x FROM c", accept="application/x-ndjson", max_rows=3)
    lines = content.decode().split("\n")
    check(lines[-2] == '{"rows":3}', f"max_rows 3: {lines}")
    _, _, content, _ = query("SELECT 1 AS a WHERE 0", accept="application/x-ndjson")
    check(content == b'{"columns":["a"],"types":[null]}\n{"rows":0}\n', f"empty result: {content!r}")


FAILING_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) "
    "SELECT x, abs(CASE WHEN x = 4000 THEN -9223372036854775808 ELSE x END) AS a, "
    "'some padding text to make the rows longer' AS pad FROM c"
)


def check_rows_before_error(lines, label):
    """Lines of FAILING_SQL's NDJSON answer: the head, rows x = 1, 2, … (all 3,999 before the failing one locally),
    the error line, and the empty string after the last newline."""
    rows = [json.loads(line) for line in lines[1:-2]]
    expected = 3999 if not CLUSTER else len(rows)
    check(len(rows) == expected and 0 < len(rows) <= 3999, f"{label}: {len(rows)} rows before the error")
    check([row["x"] for row in rows] == list(range(1, len(rows) + 1)), f"{label}: rows out of order")


def scenario_error_midstream_http1():
    status, _, content, complete = query(FAILING_SQL, accept="application/x-ndjson")
    lines = content.decode().split("\n")
    check(status == 200 and complete, f"NDJSON: {status}, complete {complete}")
    check_rows_before_error(lines, "NDJSON")
    last = json.loads(lines[-2])
    check(last.get("error", {}).get("code") == "SQLITE_ERROR", f"NDJSON last line {last}")
    check("integer overflow" in last.get("error", {}).get("message", ""), f"NDJSON last line {last}")
    status, _, content, complete = query(FAILING_SQL, accept="text/csv")
    check(status == 200, f"CSV: {status}")
    check(not complete, "CSV: the cut response ended with its last chunk")
    check(len(content) > 32 * 1024, f"CSV: only {len(content)} bytes came before the cut")
    SEEN["csv_bytes_before_cut"] = len(content)
    # An error before the first row is the ordinary JSON error.
    status, fields, content, _ = query("SELECT abs(-9223372036854775808)", accept="text/csv")
    check(status == 400 and fields.get("content-type", "").startswith("application/json"), f"{status} {fields}")
    check(json.loads(content)["error"]["code"] == "SQLITE_ERROR", f"early error {content!r}")


def scenario_error_midstream_http2():
    create_tricky_table()
    client = H2()
    body = json.dumps({"sql": FAILING_SQL})
    ndjson = client.response(client.request("POST", "/query", body, [("accept", "application/x-ndjson")]))
    lines = ndjson["body"].decode().split("\n")
    check(ndjson["status"] == 200 and ndjson["ended"] and ndjson["reset"] is None, f"NDJSON h2: {ndjson['status']}")
    check(json.loads(lines[-2]).get("error", {}).get("code") == "SQLITE_ERROR", f"NDJSON h2 last {lines[-2]}")
    check_rows_before_error(lines, "NDJSON h2")
    cut = client.response(client.request("POST", "/query", body, [("accept", "text/csv")]))
    check(cut["status"] == 200 and cut["reset"] == 2, f"CSV h2: status {cut['status']} reset {cut['reset']}")
    check(not cut["ended"], "CSV h2: the stream ended normally")
    SEEN["h2_csv_bytes_before_reset"] = len(cut["body"])
    # The connection goes on: a JSON query on the same connection, then a whole CSV.
    after = client.response(client.request("POST", "/query", json.dumps({"sql": "SELECT 1 AS one"})))
    check(after["status"] == 200 and json.loads(after["body"])["rows"] == [{"one": 1}], f"after: {after}")
    whole = client.response(client.request("GET", "/tables/tricky/rows", headers=[("accept", "text/csv")]))
    check(whole["ended"] and whole["status"] == 200, f"h2 table CSV: {whole['status']}")
    big = client.response(client.request(
        "POST", "/query",
        json.dumps({"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) "
                           "SELECT x, x * 2 AS y FROM c"}),
        [("accept", "text/csv")]))
    records = list(csv.reader(io.StringIO(big["body"].decode(), newline="")))
    check(big["ended"] and len(records) == 200001 and records[-1] == ["200000", "400000"],
          f"h2 200,000 rows: {len(records)} records, ended {big['ended']}")


BIG_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000) "
    "SELECT x, 'padding padding padding padding padding padding' AS pad FROM c"
)


def scenario_stall_http1():
    """Run with limits.stream_stall_timeout_ms = 1000: a client that stops reading is cut, its reader freed."""
    stalls = metric("sqlited_stream_stalls_total")
    status, fields, reader, sock = http1("POST", "/query", json.dumps({"sql": BIG_SQL}), [("Accept", "text/csv")],
                                         read_body=False)
    check(status == 200, f"stall: {status}")
    reader.read(1000)
    # The stall begins once the socket buffers (several MB on loopback) are full: on a loaded machine producing that
    # much takes a while, so the wait is a safety net, not a measurement.
    check(wait_for(lambda: metric("sqlited_stream_stalls_total") >= stalls + 1, 60), "no stall was counted")
    check(wait_for(lambda: metric("sqlited_streams_open") == 0, 5), "the stalled stream is still open")
    # The server closed the connection: reading to the end finds no last chunk.
    sock.settimeout(10)
    tail = b""
    try:
        while True:
            data = sock.recv(1 << 20)
            if not data:
                break
            tail += data
    except (ConnectionError, socket.timeout):
        pass
    check(not tail.endswith(b"0\r\n\r\n"), "the stalled response ended with its last chunk")
    status, _, _, _ = query("SELECT 1")
    check(status == 200, f"a query after the stall: {status}")


def scenario_stall_http2():
    """Run with limits.stream_stall_timeout_ms = 1000: a stream whose window is never reopened is reset."""
    stalls = metric("sqlited_stream_stalls_total")
    # A small stream window, never reopened: the stream stalls while the connection's window still has room.
    client = H2(window=1024)
    stream_id = client.request("POST", "/query", json.dumps({"sql": BIG_SQL}), [("accept", "application/x-ndjson")])
    started = time.time()
    result = client.response(stream_id, acknowledge=False)
    SEEN["h2_stall_seconds"] = round(time.time() - started, 2)
    check(result["reset"] == 8, f"h2 stall: reset {result['reset']} (CANCEL is 8), ended {result['ended']}")
    # The server counts the stall as its producer gives up, which may come just after the reset reached us.
    check(wait_for(lambda: metric("sqlited_stream_stalls_total") >= stalls + 1, 5), "no stall was counted")
    check(wait_for(lambda: metric("sqlited_streams_open") == 0, 5), "the stalled stream is still open")
    # The connection serves other streams.
    after = client.response(client.request("POST", "/query", json.dumps({"sql": "SELECT 2 AS two"})))
    check(after["status"] == 200, f"after the reset: {after['status']}")


def scenario_disconnect_frees_reader():
    """Run with database.readers = 1: a client that goes away mid-stream frees the one reader at once."""
    for protocol in ("http1", "h2"):
        if protocol == "http1":
            status, _, reader, sock = http1("POST", "/query", json.dumps({"sql": BIG_SQL}),
                                            [("Accept", "text/csv")], read_body=False)
            reader.read(100000)
            # The file object holds the descriptor too: close both, or nothing is closed.
            reader.close()
        else:
            client = H2()
            stream_id = client.request("POST", "/query", json.dumps({"sql": BIG_SQL}), [("accept", "text/csv")])
            client.response(stream_id, until=lambda r: len(r["body"]) > 100000)
            sock = client.sock
        check(metric("sqlited_stream_readers_held") == 1, f"{protocol}: the stream holds no reader")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        started = time.time()
        check(wait_for(lambda: metric("sqlited_streams_open") == 0, 5), f"{protocol}: the stream outlived its client")
        status, _, content, _ = query("SELECT 3 AS three")
        SEEN[protocol + "_reader_free_after_s"] = round(time.time() - started, 3)
        check(status == 200, f"{protocol}: query after the disconnect: {status} {content!r}")
        check(metric("sqlited_stream_readers_held") == 0, f"{protocol}: a reader is still held")


def scenario_stream_timeout(options=None):
    """timeout_ms lowers limits.stream_timeout_ms: NDJSON ends with a TIMEOUT line, CSV is cut."""
    options = {"timeout_ms": 300} if options is None else options
    for accept in ("application/x-ndjson", "text/csv"):
        status, _, content, complete = query(BIG_SQL, accept=accept, **options)
        check(status == 200, f"{accept}: {status}")
        if accept == "text/csv":
            check(not complete, "CSV past its time limit ended with its last chunk")
        else:
            last = json.loads(content.decode().split("\n")[-2])
            check(complete and last.get("error", {}).get("code") == "TIMEOUT", f"NDJSON last line {last}")


def scenario_stream_timeout_config():
    """Run with limits.stream_timeout_ms = 500: the same without timeout_ms; the statement time limit (5 s) does not
    apply to a stream, nor does the rows-per-response limit."""
    scenario_stream_timeout({})
    status, _, content, complete = query(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 150000) SELECT x FROM c",
        accept="application/x-ndjson")
    check(complete and content.endswith(b'{"rows":150000}\n'), f"150,000 rows: {content[-40:]!r}")


NEGOTIATION = [
    (None, "application/json"),
    ("*/*", "application/json"),
    ("application/json", "application/json"),
    ("application/*", "application/json"),
    ("text/csv", "text/csv"),
    ("text/*", "text/csv"),
    ("TEXT/CSV", "text/csv"),
    ("application/x-ndjson", "application/x-ndjson"),
    ("text/csv, application/json", "application/json"),
    ("text/csv;q=0.5, application/x-ndjson;q=0.8", "application/x-ndjson"),
    ("text/csv;q=0.9, application/json;q=0.8", "text/csv"),
    ("application/json;q=0.1, text/csv", "text/csv"),
    ("*/*;q=0.1, text/csv", "text/csv"),
    ("application/json;q=0, */*", "application/x-ndjson"),
    ("text/html, text/csv;q=0.001", "text/csv"),
    ("text/csv; charset=utf-8; q=0.7, application/x-ndjson; q=0.6", "text/csv"),
    ("text/csv;q=1.000", "text/csv"),
    ("text/csv;q=2", "application/json"),
    ("text/csv;;", "text/csv"),
    ("text/csv; foo=\"a,b;c\"; q=0.9, application/json;q=0.5", "text/csv"),
    ("text/csv; q=0.5 ; ext=1", "text/csv"),
    ("not a media type", "application/json"),
    ("image/png", 406),
    ("text/html, image/*", 406),
    ("*/*;q=0", 406),
    ("application/json;q=0, application/x-ndjson;q=0, text/csv;q=0", 406),
    ("application/*;q=0, text/csv;q=0.0", 406),
]


def scenario_negotiation():
    update("CREATE TABLE IF NOT EXISTS neg(id INTEGER PRIMARY KEY, v TEXT)")
    update("INSERT OR REPLACE INTO neg VALUES (1, 'one')")
    for accept, expected in NEGOTIATION:
        headers = [("Accept", accept)] if accept is not None else []
        for method, path, body in (("POST", "/query", json.dumps({"sql": "SELECT * FROM neg"})),
                                   ("GET", "/tables/neg/rows", None)):
            status, fields, content, _ = http1(method, path, body, headers)
            if expected == 406:
                check(status == 406 and json.loads(content)["error"]["code"] == "NOT_ACCEPTABLE",
                      f"{path} Accept {accept!r}: {status} {content!r}")
            else:
                got = fields.get("content-type", "").split(";")[0]
                check(status == 200 and got == expected, f"{path} Accept {accept!r}: {status} {got}, not {expected}")
    # Two Accept fields are one list.
    status, fields, _, _ = http1("POST", "/query", json.dumps({"sql": "SELECT 1"}),
                                 [("Accept", "image/png"), ("Accept", "text/csv")])
    check(fields.get("content-type", "").startswith("text/csv"), f"two fields: {status} {fields}")
    # Other endpoints do not negotiate.
    status, fields, _, _ = http1("GET", "/tables/neg/rows/1", headers=[("Accept", "text/csv")])
    check(status == 200 and fields["content-type"].startswith("application/json"), f"a row by key: {status}")
    # Streams refuse what they cannot do, before anything is sent.
    status, _, content, _ = http1("POST", "/query", json.dumps({"sql": "SELECT ?", "params_batch": [[1], [2]]}),
                                  [("Accept", "text/csv")])
    check(status == 400 and json.loads(content)["error"]["code"] == "INVALID_REQUEST", f"params_batch: {status}")
    status, _, content, _ = http1("GET", "/tables/neg/rows?_count=true", headers=[("Accept", "text/csv")])
    check(status == 400 and json.loads(content)["error"]["code"] == "INVALID_REQUEST", f"_count: {status}")
    for sql, code in (("SELEC 1", "SQLITE_ERROR"), ("SELECT * FROM nowhere", "SQLITE_ERROR"),
                      ("DELETE FROM neg", "READONLY_STATEMENT"), ("SELECT ?", "BIND_ERROR")):
        status, fields, content, _ = http1("POST", "/query", json.dumps({"sql": sql}), [("Accept", "text/csv")])
        check(status == 400 and json.loads(content)["error"]["code"] == code, f"{sql}: {status} {content!r}")
    status, _, content, _ = http1("GET", "/tables/nowhere/rows", headers=[("Accept", "application/x-ndjson")])
    check(status == 404, f"no such table: {status}")
    status, _, content, _ = http1("GET", "/tables/neg/rows?zz=1", headers=[("Accept", "text/csv")])
    check(status == 400 and json.loads(content)["error"]["code"] == "NO_SUCH_COLUMN", f"no such column: {status}")


def scenario_tables_stream():
    update("CREATE TABLE IF NOT EXISTS pages(id INTEGER PRIMARY KEY, grp INTEGER, name TEXT)")
    update("DELETE FROM pages")
    update("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) "
           "INSERT INTO pages SELECT x, x % 7, CASE WHEN x % 5 = 0 THEN NULL ELSE 'n' || x END FROM c")
    # Every matching row, past the JSON list's 100-row page and its row limit, in the list's order.
    query_string = "grp__ne=3&_order=-name&_columns=name"
    status, _, content, _ = http1("GET", "/tables/pages/rows?" + query_string,
                                  headers=[("Accept", "application/x-ndjson")])
    lines = [json.loads(line) for line in content.decode().split("\n")[:-1]]
    pages, cursor = [], None
    while True:
        _, _, page_content, _ = http1("GET", "/tables/pages/rows?" + query_string + "&_limit=97"
                                      + (f"&_after={cursor}" if cursor else ""))
        page = json.loads(page_content)
        pages += page["rows"]
        cursor = page["next"]
        if cursor is None:
            break
    check(lines[0]["columns"] == ["id", "name"], f"head {lines[0]}")
    check(lines[1:-1] == pages, f"streamed list != the pages ({len(lines) - 2} rows, {len(pages)} paged)")
    check(lines[-1] == {"rows": len(pages)} and len(pages) > 800, f"last line {lines[-1]}, {len(pages)} rows")
    # _after / _before start after or before the cursor's row, in the list's order; _limit is honoured.
    _, _, first_page, _ = http1("GET", "/tables/pages/rows?" + query_string + "&_limit=10")
    cursor = json.loads(first_page)["next"]
    _, _, after, _ = http1("GET", f"/tables/pages/rows?{query_string}&_after={cursor}",
                           headers=[("Accept", "application/x-ndjson")])
    after_rows = [json.loads(line) for line in after.decode().split("\n")[1:-2]]
    check(after_rows == pages[10:], f"_after: {len(after_rows)} rows, expected {len(pages) - 10}")
    _, _, later_page, _ = http1("GET", f"/tables/pages/rows?{query_string}&_limit=10&_after={cursor}")
    later_cursor = json.loads(later_page)["next"]
    _, _, before, _ = http1("GET", f"/tables/pages/rows?{query_string}&_before={later_cursor}",
                            headers=[("Accept", "application/x-ndjson")])
    before_rows = [json.loads(line) for line in before.decode().split("\n")[1:-2]]
    check(before_rows == pages[:19], f"_before: {len(before_rows)} rows, expected the 19 before the cursor's row")
    _, _, limited, _ = http1("GET", f"/tables/pages/rows?{query_string}&_limit=5&_shape=arrays",
                             headers=[("Accept", "text/csv")])
    records = list(csv.reader(io.StringIO(limited.decode(), newline="")))
    check(records[0] == ["id", "name"] and [[int(r[0]), r[1] or None] for r in records[1:]]
          == [[p["id"], p["name"]] for p in pages[:5]], f"_limit=5 CSV: {records}")


def main():
    global PORT, CLUSTER
    scenario, PORT = sys.argv[1], int(sys.argv[2])
    CLUSTER = len(sys.argv) > 3 and sys.argv[3] == "cluster"
    globals()["scenario_" + scenario]()
    print(json.dumps({"failures": FAILURES, "seen": SEEN}))


if __name__ == "__main__":
    main()
