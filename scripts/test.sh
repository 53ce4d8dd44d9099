#!/usr/bin/env bash
# npm test: the whole suite, on both engines. Starts a real Elasticsearch on loopback
# (scripts/elasticsearch.sh) unless ELASTICSEARCH_URL is already set or none of the files named reaches
# it, fetches the test embedding model (scripts/fetch-model.sh), runs tap (a file per core at a time),
# stops what it started, and ends with "N passed, N failed".
# Prints a line per test file and the failures at the end (scripts/test-reporter.mjs); the full TAP
# stream and the tests' stderr stay in .tap/last-run.tap and .tap/last-run.stderr (PDI_TEST_LOG names
# them otherwise: the reliability suite keeps .tap/reliability.*).
# Arguments are passed to tap (e.g. a test file).
set -uo pipefail
cd "$(dirname "$0")/.."

# An instance of this run's own: two runs on one machine (two checkouts) must not share a node, since
# each purges its node when it ends.
instance="npm-test-$$"
started_es=0
# purge, not stop: no test index survives into the next run on this machine.
stop_es() { [ "$started_es" = 1 ] && PDI_ES_INSTANCE="$instance" bash scripts/elasticsearch.sh purge >/dev/null 2>&1; true; }
trap stop_es EXIT

# Instances of earlier runs that were killed before they could purge theirs (their watchdog has
# stopped the node; the data is left).
for dir in "${PDI_ES_RUN_DIR:-${TMPDIR:-/tmp}/pdi-es}"/npm-test-*; do
  [ -d "$dir" ] || continue
  pid="${dir##*/npm-test-}"
  [[ "$pid" =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null || continue
  PDI_ES_INSTANCE="npm-test-$pid" bash scripts/elasticsearch.sh purge >/dev/null 2>&1
done

# Files named on the command line (the rest are tap options): when none of them reaches Elasticsearch
# (scripts/test-files.mjs), no node is started for them.
files=()
for arg in "$@"; do [[ "$arg" == *.test.ts ]] && files+=("$arg"); done
needs_es=1
if [ ${#files[@]} -gt 0 ] && [ -z "$(node scripts/test-files.mjs elasticsearch "${files[@]}")" ]; then
  needs_es=0
  echo "Elasticsearch: not started (none of these files reaches it)"
fi

if [ -z "${ELASTICSEARCH_URL:-}" ] && [ "$needs_es" = 1 ]; then
  if out=$(PDI_ES_INSTANCE="$instance" PDI_ES_OWNER_PID=$$ bash scripts/elasticsearch.sh start); then
    export ELASTICSEARCH_URL="${out##*ELASTICSEARCH_URL=}"
    started_es=1
    echo "Elasticsearch: $ELASTICSEARCH_URL"
  elif [ "${PDI_REQUIRE_ES:-0}" = 1 ]; then
    echo "Elasticsearch could not be started and PDI_REQUIRE_ES=1" >&2
    exit 1
  else
    echo "WARNING: Elasticsearch could not be started; its tests will be skipped" >&2
  fi
fi

# No test process fetches the model or takes it from the cache unless it asks (PDI_MODEL_FETCH=1).
export PDI_MODEL_FETCH=0

# The model tests find the fetched model in the script's default folder (not through PDI_MODEL_DIR,
# which would also switch the CLI processes that other tests start to the model).
if model_dir=$(bash scripts/fetch-model.sh 2>/dev/null | tail -n 1) && [ -d "$model_dir" ]; then
  echo "Embedding model: $model_dir"
else
  echo "WARNING: the test embedding model could not be fetched; its tests will be skipped" >&2
fi

# PDI_TEST_FIXTURES names another folder (test/helpers/paths.ts); one that does not exist runs as a bare clone.
fixtures="${PDI_TEST_FIXTURES:-../shared/fixtures}"
if [ ! -d "$fixtures" ]; then
  echo "WARNING: $fixtures is absent; the tests that read it are skipped (every parser still runs on data/demo)" >&2
fi

# Once, before the tests: the compiled build's test runs it, `npm start` runs it, and the CLI the tests
# start (bin/pdi.js) runs it when it is current. A failed build fails that test; the rest still runs.
node scripts/build.mjs --if-stale >&2 || echo "WARNING: npm run build failed; the compiled build's test will fail" >&2

# package.json's "tap" loads only the plugins the tests use: not @tapjs/typescript (tsx loads our
# TypeScript), nor @tapjs/mock (its loader hooks every import of every test file) and the others no test
# calls; a file's process starts about 0.35 s of CPU sooner. tap rebuilds its test class when it was
# built with other plugins, but only after choosing the loaders of that run's test files: the first run
# after each npm ci started every file with ts-node's type-checking loader as well (seconds of CPU a
# file that loads the app; 70 s against 23 s for eight files). Built first, the run starts its files
# with what it was configured with.
built_class=node_modules/@tapjs/test/test-built/dist/esm/index.js
built=$(sed -n '/^export const signature = `/,/`/p' "$built_class" 2>/dev/null | sed -e '1s/^export const signature = `//' -e 's/`;\?$//')
if [ "$built" != "$(npx tap plugin list)" ]; then
  echo "Building tap's test class for the plugins of package.json" >&2
  npx tap build >&2 || echo "WARNING: tap build failed; this run's test files load every default plugin" >&2
fi

# A file at a time per core: tap's default leaves one core free (one job on two cores), and a test file
# waits on its processes, sockets and timers much of its time. 104 files of the unit and API tests on two
# cores: 476 s with one job, 208 s with two (CPU 435 s and 391 s). A --jobs given here comes later and
# wins (the reliability suite runs one file at a time).
jobs=$(node -p 'require("os").availableParallelism()')

mkdir -p .tap
log=".tap/${PDI_TEST_LOG:-last-run}.tap"
npx tap --reporter=tap --jobs="$jobs" "$@" 2>".tap/${PDI_TEST_LOG:-last-run}.stderr" | tee "$log" | node scripts/test-reporter.mjs
status=${PIPESTATUS[0]}

# tap's closing line: "# { total: 12, pass: 11, fail: 1, skip: 1 }"
summary=$(grep -E '^# \{ total: ' "$log" | tail -n 1)
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
skip=$(sed -nE 's/.*skip: ([0-9]+).*/\1/p' <<<"$summary")
if [ -z "$summary" ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
# A test file that ended its process (an uncaught error) fails tap without a failed assertion in the
# summary: it counts as one failure, so the line never says 0 failed for a failing run.
if [ "$status" != 0 ] && [ "${fail:-0}" = 0 ]; then fail=1; fi
echo "${pass:-0} passed, ${fail:-0} failed${skip:+, $skip skipped}"
[ "$status" = 0 ] && [ "${fail:-0}" = 0 ]
