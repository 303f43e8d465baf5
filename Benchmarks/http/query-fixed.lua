-- wrk script: POST /query, one point select with a fixed id (h2load sends one fixed body, so the HTTP/2 benchmark's
-- wrk row asks the same). Usage: wrk -t1 -c64 -d10s --latency -s query-fixed.lua http://127.0.0.1:PORT

wrk.method = "POST"
wrk.path = "/query"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"sql": "SELECT * FROM t WHERE id = ?", "params": [4242]}'
