-- wrk script: POST /update as update.lua, each request with an Idempotency-Key of its own (never reused, also
-- across runs against the same database: a random prefix per thread), so every request runs and stores its key.
-- Usage: wrk -t2 -c64 -d10s --latency -s update-keyed.lua http://127.0.0.1:PORT

local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

local prefix
local counter = 0
local headers = { ["Content-Type"] = "application/json" }
local body = '{"sql": "INSERT INTO w(v) VALUES (?)", "params": ["x"]}'

function init(args)
    math.randomseed(os.time() * 1000 + id)
    prefix = string.format("b%d-%08x%08x-", id, math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
end

function request()
    counter = counter + 1
    headers["Idempotency-Key"] = prefix .. counter
    return wrk.format("POST", "/update", headers, body)
end
