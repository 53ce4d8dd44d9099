-- wrk script: POSTs the JSON bodies of a list in turn (PDI_BENCH_BODIES, one a line) to the URL's path,
-- each with the next key of the list (PDI_BENCH_KEYS), so no key runs out.
local keys = {}
for line in io.lines(os.getenv("PDI_BENCH_KEYS")) do keys[#keys + 1] = line end
local bodies = {}
for line in io.lines(os.getenv("PDI_BENCH_BODIES")) do bodies[#bodies + 1] = line end
local i, j = 0, 0
request = function()
  i = i % #keys + 1
  j = j % #bodies + 1
  return wrk.format("POST", nil, { ["Authorization"] = "Bearer " .. keys[i], ["Content-Type"] = "application/json" }, bodies[j])
end
