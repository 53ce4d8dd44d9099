#!/usr/bin/env bash
# Rebuilds data/vocabulary/ (cpv.tsv, lexicon-en-el.tsv) from their pinned sources, each checked against
# its SHA-256 (data/vocabulary/README.md names them, with their licences):
#   - the official CPV 2008 table in the TED eForms SDK, from Maven Central (needs mvn);
#   - FreeDict's English–Greek and Greek–English dictionaries, the Debian packages (needs apt-get and
#     dpkg-deb; `apt-get update` first when apt does not know the versions).
# The server and tests read only the committed files: a fresh clone needs neither Maven nor apt.
#
#   scripts/vocabulary.sh [OUT_DIR]    # default data/vocabulary
set -euo pipefail

SDK_ARTIFACT="eu.europa.ted.eforms:eforms-sdk:1.15.1:jar"
SDK_JAR="eforms-sdk-1.15.1.jar"
SDK_SHA256="d16f7bffd9b13c787caf9c2104425b3ec76949e0d85427c598dc379b02752c5c"
ENG_ELL="dict-freedict-eng-ell=2022.04.21-1"
ENG_ELL_DEB="dict-freedict-eng-ell_2022.04.21-1_all.deb"
ENG_ELL_SHA256="b6a7d3154f93fc26554d2e3fd2529b98bfc67d17020a4ff8b2fe804373c83ecc"
ELL_ENG="dict-freedict-ell-eng=2022.12.07-2"
ELL_ENG_DEB="dict-freedict-ell-eng_2022.12.07-2_all.deb"
ELL_ENG_SHA256="4a6f9adeb8e085b8a807bf62dd67468dbbbb16ea7299ab41cdddb29e7d404242"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(realpath -m "${1:-$ROOT/data/vocabulary}")"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pdi-vocabulary.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

die() { echo "vocabulary.sh: $*" >&2; exit 1; }
check() { # file sha256
  local got
  got="$(sha256sum "$1" | cut -c1-64)"
  [ "$got" = "$2" ] || die "$(basename "$1"): SHA-256 $got, expected $2"
}

for tool in mvn apt-get dpkg-deb unzip node; do command -v "$tool" >/dev/null 2>&1 || die "$tool is needed"; done

cd "$WORK"
mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$SDK_ARTIFACT" -DoutputDirectory="$WORK" >&2 || die "mvn dependency:copy $SDK_ARTIFACT failed"
check "$SDK_JAR" "$SDK_SHA256"
unzip -q "$SDK_JAR" eforms-sdk/codelists/cpv.gc

# apt-get download writes into the current folder; it knows a version only after an `apt-get update`.
apt-get download "$ENG_ELL" "$ELL_ENG" >&2 2>/dev/null || { apt-get update -qq >&2 && apt-get download "$ENG_ELL" "$ELL_ENG" >&2; } \
  || die "apt-get download $ENG_ELL $ELL_ENG failed"
check "$ENG_ELL_DEB" "$ENG_ELL_SHA256"
check "$ELL_ENG_DEB" "$ELL_ENG_SHA256"
dpkg-deb -x "$ENG_ELL_DEB" deb
dpkg-deb -x "$ELL_ENG_DEB" deb

cd "$ROOT"
node --import tsx data/vocabulary.ts --cpv "$WORK/eforms-sdk/codelists/cpv.gc" \
  --eng-ell "$WORK/deb/usr/share/dictd/freedict-eng-ell" --ell-eng "$WORK/deb/usr/share/dictd/freedict-ell-eng" --out "$OUT"
