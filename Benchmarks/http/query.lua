-- wrk script: POST /query, one indexed lookup per request, id uniformly random in 1..100000.
-- Usage: wrk -t2 -c64 -d10s --latency -s query.lua http://127.0.0.1:PORT
-- Works unchanged against sqlited and against `reference-server query`.

local counter = 0

-- Runs in the main Lua state once per thread: give each thread its own seed so threads do not
-- ask for the same ids in the same order.
function setup(thread)
   counter = counter + 1
   thread:set("seed", counter)
end

function init(args)
   math.randomseed(os.time() * 1000 + (seed or 0))
   -- Discard the first few values: Lua 5.1's generator starts out poorly mixed after seeding.
   for _ = 1, 8 do math.random() end
end

local headers = { ["Content-Type"] = "application/json" }
local format = '{"sql": "SELECT * FROM t WHERE id = ?", "params": [%d]}'

function request()
   return wrk.format("POST", "/query", headers, string.format(format, math.random(1, 100000)))
end
