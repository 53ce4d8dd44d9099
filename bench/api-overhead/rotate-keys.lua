-- wrk script: each request carries the next key of the list (so no key exceeds its daily quota).
local keys = {}
for line in io.lines(os.getenv("PDI_BENCH_KEYS")) do keys[#keys + 1] = line end
local i = 0
request = function()
  i = i % #keys + 1
  return wrk.format("GET", "/v1/bench", { ["Authorization"] = "Bearer " .. keys[i] })
end
