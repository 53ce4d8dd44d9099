-- wrk script: GETs the paths of a list in turn (PDI_BENCH_PATHS, one a line), each with the next key
-- of the list (PDI_BENCH_KEYS), so no key runs out and no answer is served twice in a row.
local keys = {}
for line in io.lines(os.getenv("PDI_BENCH_KEYS")) do keys[#keys + 1] = line end
local paths = {}
for line in io.lines(os.getenv("PDI_BENCH_PATHS")) do paths[#paths + 1] = line end
local i, j = 0, 0
request = function()
  i = i % #keys + 1
  j = j % #paths + 1
  return wrk.format("GET", paths[j], { ["Authorization"] = "Bearer " .. keys[i] })
end
