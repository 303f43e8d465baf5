import Foundation

/// A stand-in for sqlited used to test the sqllogictest runner itself: Python's `sqlite3` module (the system
/// libsqlite3) behind `http.server`, answering the two requests the runner makes — `POST /batch {"script"}` and
/// `POST /query {"sql", "shape": "arrays"}` — with the API's value encoding, and refusing temporary objects,
/// ATTACH and DETACH with 403 `SQLITE_AUTH` through an authorizer, as sqlited's SQL policy does.
///
/// It announces itself with the same `sqlited: listening on …` line, so ``ServerProcess`` starts it like the real
/// server. It is test scaffolding, not a model of sqlited: no limits, no other endpoints.
enum SQLiteStandInServer {
    static let pythonPath = "/usr/bin/python3"

    /// True when `/usr/bin/python3` exists and has the `sqlite3` module (tests using the stand-in are disabled
    /// otherwise).
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: pythonPath) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pythonPath)
        process.arguments = ["-c", "import sqlite3, http.server"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Starts the stand-in on an ephemeral loopback port, serving a new database in `directory`.
    static func start(directory: URL) throws -> ServerProcess {
        try ServerProcess(
            executableURL: URL(fileURLWithPath: pythonPath),
            arguments: ["-c", script, directory.appendingPathComponent("standin.sqlite").path]
        )
    }

    private static let script = #"""
        import base64, json, math, sqlite3, sys, threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        db = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
        db.text_factory = lambda b: b.decode("utf-8", "replace")
        DENIED = {
            sqlite3.SQLITE_CREATE_TEMP_INDEX, sqlite3.SQLITE_CREATE_TEMP_TABLE,
            sqlite3.SQLITE_CREATE_TEMP_TRIGGER, sqlite3.SQLITE_CREATE_TEMP_VIEW,
            sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH,
        }
        db.set_authorizer(lambda action, *rest: sqlite3.SQLITE_DENY if action in DENIED else sqlite3.SQLITE_OK)
        lock = threading.Lock()

        def encode(value):
            if isinstance(value, bytes):
                return {"base64": base64.b64encode(value).decode("ascii")}
            if isinstance(value, float) and math.isinf(value):
                return "Infinity" if value > 0 else "-Infinity"
            return value

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; without this, Nagle plus delayed ACK adds ~40 ms each.
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                try:
                    with lock:
                        if self.path == "/batch":
                            db.executescript(request["script"])
                            return self.reply(200, {"results": []})
                        if self.path == "/query":
                            cursor = db.execute(request["sql"])
                            columns = [d[0] for d in cursor.description or []]
                            rows = [[encode(v) for v in row] for row in cursor.fetchall()]
                            return self.reply(200, {"columns": columns, "rows": rows})
                    self.reply(404, {"error": {"code": "NOT_FOUND", "message": self.path}})
                except sqlite3.Error as error:
                    name = getattr(error, "sqlite_errorname", "SQLITE_ERROR")
                    status = 403 if name == "SQLITE_AUTH" else 409 if name.startswith("SQLITE_CONSTRAINT") else 400
                    self.reply(status, {"error": {"code": name, "message": str(error)}})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("sqlited: listening on http://127.0.0.1:%d" % server.server_address[1], file=sys.stderr, flush=True)
        server.serve_forever()
        """#
}
