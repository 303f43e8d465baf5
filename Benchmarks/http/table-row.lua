-- wrk script: GET /tables/t/rows/{id}, id uniformly random in 1..100000 (the same lookup as query.lua does
-- through POST /query). Usage: wrk -t1 -c64 -d10s --latency -s table-row.lua http://127.0.0.1:PORT

local counter = 0

function setup(thread)
   counter = counter + 1
   thread:set("seed", counter)
end

function init(args)
   math.randomseed(os.time() * 1000 + (seed or 0))
   for _ = 1, 8 do math.random() end
end

function request()
   return wrk.format("GET", "/tables/t/rows/" .. math.random(1, 100000))
end
