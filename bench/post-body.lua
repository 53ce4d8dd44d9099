-- wrk script: the same POST for every request, its JSON body read from the file BENCH_BODY_FILE names.
local f = assert(io.open(os.getenv("BENCH_BODY_FILE"), "r"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
