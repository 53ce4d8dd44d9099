#!/usr/bin/env bash
# npm run test:reliability: the reliability suite (test/reliability/*.test.ts, which npm test leaves
# out), through scripts/test.sh (its own Elasticsearch, the model, the "N passed, N failed" line).
# Installs schemathesis first (scripts/fetch-schemathesis.sh) and hands its path to the tests in
# PDI_SCHEMATHESIS. Bounded for CI (about 15 minutes on 2 cores); PDI_RELIABILITY_LONG=1 runs the long
# variants (more examples, longer soaks) with a longer per-file timeout. docs/reliability.md has the
# figures of each item. Arguments (test files) replace the whole suite.
set -uo pipefail
cd "$(dirname "$0")/.."

if bin=$(bash scripts/fetch-schemathesis.sh | tail -n 1) && [ -x "$bin" ]; then
  export PDI_SCHEMATHESIS="$bin"
  echo "schemathesis: $bin"
else
  echo "WARNING: schemathesis could not be installed; its tests fail" >&2
fi

files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/reliability/*.test.ts)
# One file at a time: each makes its own load (soaks, fuzzing, kills) and judges the server under it,
# so a second file's load beside it skews what it measures (a 45 s memory soak beside schemathesis).
tap_args=(--jobs=1)
# tap's per-file timeout (package.json: 600 s) is too short for the long variants.
[ "${PDI_RELIABILITY_LONG:-0}" = 1 ] && tap_args+=(--timeout=7200)
export PDI_TEST_LOG=reliability
exec bash scripts/test.sh "${tap_args[@]}" "${files[@]}"
