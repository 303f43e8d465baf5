-- wrk script: POST /update, one single-row INSERT per request (autocommit, so one transaction each).
-- Usage: wrk -t2 -c64 -d10s --latency -s update.lua http://127.0.0.1:PORT
-- Works unchanged against sqlited and against `reference-server update`. Table: w(id INTEGER PRIMARY KEY, v TEXT).

wrk.method = "POST"
wrk.path = "/update"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"sql": "INSERT INTO w(v) VALUES (?)", "params": ["x"]}'
