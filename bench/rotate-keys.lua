-- wrk script: the same GET for every request, each with the next key of the list (no key runs out).
local keys = {}
for line in io.lines(os.getenv("PDI_BENCH_KEYS")) do keys[#keys + 1] = line end
local i = 0
request = function()
  i = i % #keys + 1
  return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. keys[i] })
end
