-- wrk script: GET / against a server answering a fixed small JSON body (HTTP-server-only comparison:
-- sqlited-http-bench, nginx with nginx.conf, `reference-server static`).
-- Usage: wrk -t2 -c64 -d10s --latency -s static.lua http://127.0.0.1:PORT

wrk.method = "GET"
wrk.path = "/"
