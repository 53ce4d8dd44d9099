#!/usr/bin/env bash
# The embedded engine's reader threads, through the API: with reads on the main thread
# (PDI_EMBEDDED_READERS=0) and on reader threads (the default), measures
#   1. GET /v1/usage alone, then beside two clients searching two common terms (does a heavy search
#      stall the rest of the API?);
#   2. /v1/search throughput and latency at 10 clients for a rare term, the most common term and
#      two-term queries.
# Needs wrk and the 1M-document index that bench/search/embedded.ts builds (its path is the first
# argument; default: that script's default). Results: docs/benchmarks.md "Search: embedded engine".
set -euo pipefail
cd "$(dirname "$0")/../.."

index=${1:-${PDI_BENCH_DIR:-${TMPDIR:-/tmp}/pdi-bench}/embedded-1000000-20240611.sqlite}
seconds=${SECONDS_PER_RUN:-10}
[ -f "$index" ] || { echo "no index at $index: run node --import tsx bench/search/embedded.ts --docs 1000000 first" >&2; exit 2; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
ln -s "$index" "$work/index.db"
# Enterprise keys (1,000 requests a day each), rotated by bench/rotate-keys.lua so none runs out.
node --import tsx -e "
  const { openDatabase, accountsDbPath } = await import('./api/db/database.ts');
  const { KeyStore } = await import('./api/db/keys.ts');
  const db = openDatabase(accountsDbPath('$work'));
  const keys = new KeyStore(db);
  const list = Array.from({ length: 1000 }, (_, i) => keys.create('bench-' + (i % 10), 'enterprise').key);
  (await import('node:fs')).writeFileSync('$work/keys.txt', list.join('\n') + '\n');
  db.close();"
export PDI_BENCH_KEYS=$work/keys.txt

wrk_line() { grep -E 'Requests/sec|^\s+(50|99)%' | awk '/50%/{p50=$2} /99%/{p99=$2} /Requests/{r=$2} END{printf "%s req/s, p50 %s, p99 %s", r, p50, p99}'; }
encode() { node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$1"; }

for readers in 0 default; do
  port=$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")
  env_readers=()
  [ "$readers" = default ] || env_readers=(PDI_EMBEDDED_READERS="$readers")
  env "${env_readers[@]}" PDI_DATA_DIR="$work" PORT="$port" HOST=127.0.0.1 PDI_DEMO=0 LOG_LEVEL=error PDI_MODEL_DIR= \
    node --import tsx api/server.ts > "$work/server.log" 2>&1 &
  server=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/v1/models"; do sleep 0.2; done
  base="http://127.0.0.1:$port"
  usage="$base/v1/usage"
  heavy="$base/v1/search?q=$(encode 'προμήθεια σύμβαση')&limit=100"
  echo "## PDI_EMBEDDED_READERS=$readers"
  wrk -t1 -c1 -d3s -s bench/rotate-keys.lua "$usage" > /dev/null
  echo "usage, 1 client, alone:                   $(wrk -t1 -c1 -d"${seconds}"s --latency -s bench/rotate-keys.lua "$usage" | wrk_line)"
  wrk -t1 -c2 -d$((seconds + 4))s --latency -s bench/rotate-keys.lua "$heavy" > "$work/heavy.txt" &
  sleep 2
  echo "usage, 1 client, beside 2 heavy searches: $(wrk -t1 -c1 -d"${seconds}"s --latency -s bench/rotate-keys.lua "$usage" | wrk_line)"
  wait $!
  echo "the heavy searches ('προμήθεια σύμβαση'):  $(wrk_line < "$work/heavy.txt")"
  for q in 'Λεοντέλλης' 'και' 'ανάθεση δήμος' 'προμήθεια σύμβαση'; do
    url="$base/v1/search?q=$(encode "$q")&limit=100"
    wrk -t1 -c10 -d2s -s bench/rotate-keys.lua "$url" > /dev/null
    echo "search '$q', 10 clients: $(wrk -t1 -c10 -d"${seconds}"s --latency -s bench/rotate-keys.lua "$url" | wrk_line)"
  done
  kill "$server"; wait "$server" 2>/dev/null || true
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
