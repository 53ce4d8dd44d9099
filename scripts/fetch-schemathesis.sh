#!/usr/bin/env bash
# Installs schemathesis (the OpenAPI fuzzer of the reliability suite) from PyPI into a private venv
# outside git, with every package pinned to an exact version. Idempotent: a complete venv is left
# alone. Prints the path of the `schemathesis` executable as its last line (the rest goes to stderr):
#
#   PDI_SCHEMATHESIS="$(scripts/fetch-schemathesis.sh | tail -n 1)"
#
# Environment (all optional): PDI_CACHE_DIR (default ~/.cache/pdi), PDI_PYTHON (Python 3.9+, default
# python3).
set -euo pipefail

CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
PYTHON="${PDI_PYTHON:-python3}"
VERSION="4.32.5"
# schemathesis and what it pulled in when it was pinned (pip freeze), so a later release of a
# dependency cannot change what the suite runs.
PINNED=(schemathesis==$VERSION anyio==4.16.0 certifi==2026.10.19.post1 charset-normalizer==3.5.3
  click==8.5.1 graphql-core==3.3.2 harfile==0.6.0 hypothesis==6.170.17 hypothesis-graphql==0.13.5
  idna==3.20 iniconfig==2.3.1 jsonschema_rs==0.60.3 markdown-it-py==4.3.0 MarkupSafe==3.0.4 mdurl==0.1.2
  packaging==26.4 pluggy==1.7.0 Pygments==2.21.0 pyrate-limiter==4.5.1 pytest==9.2.0 PyYAML==6.0.4
  requests==2.34.2 rich==15.0.0 sortedcontainers==2.4.0 typing_extensions==4.16.0 urllib3==2.8.0
  Werkzeug==3.1.9)
VENV="$CACHE/venv/schemathesis-$VERSION"
BIN="$VENV/bin/schemathesis"

log() { echo "fetch-schemathesis.sh: $*" >&2; }
die() { log "$*"; exit 1; }

ready() { [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "schemathesis, version $VERSION" ]; }

if ready; then echo "$BIN"; exit 0; fi
command -v "$PYTHON" >/dev/null || die "needs $PYTHON (set PDI_PYTHON)"
mkdir -p "$CACHE/venv"
# One install at a time per cache (parallel runs may all call this).
exec 9>"$CACHE/venv/.schemathesis.lock"
if command -v flock >/dev/null; then flock 9; fi
if ready; then echo "$BIN"; exit 0; fi

log "installing schemathesis==$VERSION into $VENV"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV" || die "python venv failed (Debian: apt-get install python3-venv)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${PINNED[@]}" >&2 \
  || { rm -rf "$VENV"; die "pip install schemathesis==$VERSION failed (is PyPI reachable?)"; }
ready || { rm -rf "$VENV"; die "schemathesis did not install as version $VERSION"; }
echo "$BIN"
