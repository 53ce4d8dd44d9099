#!/usr/bin/env bash
# Runs a real Elasticsearch on loopback for integration tests and CI.
#
#   scripts/elasticsearch.sh start    # prints ELASTICSEARCH_URL=http://127.0.0.1:PORT as its last line
#   scripts/elasticsearch.sh stop     # ends it and waits; keeps its data and port for the next start
#   scripts/elasticsearch.sh status   # "running" + the URL (exit 0), or "stopped" (exit 3)
#   scripts/elasticsearch.sh purge    # stop, then delete the instance directory (data, logs, state)
#   scripts/elasticsearch.sh java     # the JDK it would run PDI_ES_VERSION on; exit 1 when there is none
#
# A cluster on loopback: `start --nodes N` (N of 2-9) starts N master-eligible data nodes, each with its
# own directory (node-1 ... node-N under the instance directory), ports and PDI_ES_HEAP, and waits for
# all N in the cluster, health yellow. Its last two lines are ELASTICSEARCH_URL= with every node's URL
# and ELASTICSEARCH_PIDS= with their process ids, both comma-separated in node order. Run again (with
# or without --nodes), `start` starts only the nodes that are not running, e.g. one that was killed.
# `stop` and `purge` take every node; `status` says "running" (all, exit 0), "stopped" (none, exit 3)
# or "degraded" (some, exit 4), then a line per node and the two lines of `start`.
#
# Environment (all optional):
#   PDI_CACHE_DIR      where the distribution zip is fetched and unzipped (default ~/.cache/pdi)
#   PDI_ES_VERSION     default 9.5.4 (the newest integ-test-zip Maven Central serves: no bundled JDK);
#                      9.x needs a JDK 21+, looked for in /usr/lib/jvm. pdi does not run on 8.x.
#   PDI_ES_INSTANCE    name of an independent instance (default "default"); tests use their own
#   PDI_ES_RUN_DIR     parent of instance directories (default ${TMPDIR:-/tmp}/pdi-es)
#   PDI_ES_PORT        HTTP port; default: the port this instance used last, else a random free one
#                      (a cluster's ports are random free ones, picked at its first start and kept)
#   PDI_ES_HEAP        JVM heap (default 512m: the machine has 2 cores and others run things too)
#   PDI_ES_USER        user to run as when invoked as root (default pdi-es; ES refuses to run as root)
#   PDI_ES_OWNER_PID   when set, a watchdog stops this instance once that process is gone (test runs
#                      that crash before their teardown do not leak a JVM)
#   PDI_ES_START_TIMEOUT  seconds to wait for cluster health yellow (default 120, and 240 for a cluster)
set -euo pipefail

ES_VERSION="${PDI_ES_VERSION:-9.5.4}"
CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
INSTANCE="${PDI_ES_INSTANCE:-default}"
RUN_ROOT="${PDI_ES_RUN_DIR:-${TMPDIR:-/tmp}/pdi-es}"
ES_USER="${PDI_ES_USER:-pdi-es}"
HEAP="${PDI_ES_HEAP:-512m}"
START_TIMEOUT="${PDI_ES_START_TIMEOUT:-}"
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
ZIP="$CACHE/elasticsearch-${ES_VERSION}.zip"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# No leading dot: the instance directory is deleted by `purge`, so "." or ".." must never name one.
[[ "$INSTANCE" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]] || { echo "PDI_ES_INSTANCE must be letters, digits, _ . - (no leading dot)" >&2; exit 2; }
RUN="$RUN_ROOT/$INSTANCE"
STATE="$RUN/state"       # PORT=... and URL=... of this instance (kept across stop/start); a cluster's
                         # NODES=N, PORT_i=, TPORT_i= (HTTP and transport), URL=, FORMED=1 once it formed
# The directory of the node in hand (node_ctx): the instance directory itself for a single node.
NODE_DIR="$RUN"
PIDFILE="$RUN/es.pid"    # written by Elasticsearch itself (-p), removed by it on a clean exit

log() { echo "elasticsearch.sh: $*" >&2; }
die() { log "$*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# --- HTTP without assuming curl (CI is a bare machine with Java and Maven) ---------------------------
http_get() { # url → body on stdout; non-zero when the connection fails
  local url="$1"
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 10 "$url"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 10 -O - "$url"
  else
    local rest="${url#http://}" hostport path host port
    hostport="${rest%%/*}"; path="/${rest#*/}"; host="${hostport%:*}"; port="${hostport##*:}"
    exec 3<>"/dev/tcp/$host/$port" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$hostport" >&3
    timeout 10 cat <&3 | sed '1,/^\r*$/d'
    exec 3<&-
  fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local p i
  for i in $(seq 1 50); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    port_in_use "$p" || { echo "$p"; return 0; }
  done
  die "no free loopback port found"
}

state_get() { [ -f "$STATE" ] && sed -n "s/^$1=//p" "$STATE"; true; }

read_state() { # sets PORT, URL and NODES (1 for a single node) from the state file, if any
  PORT=$(state_get PORT); URL=$(state_get URL); NODES=$(state_get NODES)
  NODES=${NODES:-1}
}

node_ctx() { # makes node $1 of a cluster the one in hand: NODE_DIR, PIDFILE, PORT, TPORT
  NODE_DIR="$RUN/node-$1"; PIDFILE="$NODE_DIR/es.pid"
  PORT=$(state_get "PORT_$1"); TPORT=$(state_get "TPORT_$1")
}

es_pid() { # pid of the node in hand, when alive and really ours
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against pid reuse: the process must be an Elasticsearch whose config is this node's.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Djava.io.tmpdir=$NODE_DIR/tmp " || return 1
  echo "$pid"
}

healthy() { # cluster health yellow or green on $URL (with $1 nodes in the cluster, when given)
  local body
  body=$(http_get "$URL/_cluster/health?wait_for_status=yellow${1:+&wait_for_nodes=$1}&timeout=2s" 2>/dev/null) || return 1
  [[ "$body" =~ \"status\":\"(green|yellow)\" ]] && [[ "$body" =~ \"timed_out\":false ]]
}

# --- distribution -----------------------------------------------------------------------------------
fetch_and_unzip() {
  mkdir -p "$CACHE"
  # One fetch/unzip at a time across concurrent starts (tests run files in parallel).
  exec 8>"$CACHE/.elasticsearch.lock"
  flock 8
  if [ ! -f "$ZIP" ]; then
    command -v mvn >/dev/null 2>&1 || die "mvn is needed to fetch $ARTIFACT"
    log "fetching $ARTIFACT into $CACHE"
    (cd "$CACHE" && mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$CACHE") >&2 \
      || die "mvn dependency:copy failed"
    [ -f "$ZIP" ] || die "mvn did not produce $ZIP"
  fi
  ES_HOME="$CACHE/elasticsearch-${ES_VERSION}"
  if [ ! -f "$ES_HOME/.unzipped" ]; then
    log "unzipping into $ES_HOME"
    local tmp="$CACHE/.unzip.$$"
    rm -rf "$tmp" "$ES_HOME"; mkdir -p "$tmp"
    unzip -q "$ZIP" -d "$tmp"
    mv "$tmp/elasticsearch-${ES_VERSION}" "$ES_HOME"; rm -rf "$tmp"
    touch "$ES_HOME/.unzipped"
  fi
  if is_root && ! runuser -u "$ES_USER" -- test -r "$ES_HOME/lib/elasticsearch-${ES_VERSION}.jar"; then
    # The cache is under root's home (mode 700 on Debian): the unprivileged user cannot read it there,
    # so keep a readable copy beside the instance directories.
    local shared="$RUN_ROOT/elasticsearch-${ES_VERSION}"
    if [ ! -f "$shared/.unzipped" ]; then
      log "copying the distribution to $shared (readable by $ES_USER)"
      rm -rf "$shared.tmp.$$"; cp -a "$ES_HOME" "$shared.tmp.$$"
      chmod -R a+rX "$shared.tmp.$$"; rm -rf "$shared"; mv "$shared.tmp.$$" "$shared"
    fi
    ES_HOME="$shared"
  fi
  install_analysis_shim
  flock -u 8
}

# The integ-test-zip has no analysis-common module (so no `lowercase` with a language, `stemmer` or
# `asciifolding`): build the small stand-in plugin beside this script against the distribution's own
# jars and install it. Rebuilt only when its source changes. Never installed next to a real
# analysis-common, whose type names it shares.
install_analysis_shim() {
  [ -d "$ES_HOME/modules/analysis-common" ] && return 0
  local src="$SCRIPT_DIR/elasticsearch-analysis-shim/PdiAnalysisShimPlugin.java"
  local dest="$ES_HOME/plugins/pdi-analysis-shim" marker="$ES_HOME/.pdi-analysis-shim.sha256" sum jhome build
  [ -f "$src" ] || die "missing $src"
  sum=$(sha256sum "$src" | cut -c1-64)
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$sum" ] && [ -d "$dest" ]; then return 0; fi
  jhome=$(java_home)
  [ -x "$jhome/bin/javac" ] || die "javac (a JDK 17+, not only a JRE) is needed at $jhome/bin to build the analysis shim"
  log "building the analysis shim plugin"
  build=$(mktemp -d)
  "$jhome/bin/javac" --release 17 -nowarn -cp "$ES_HOME/lib/*" -d "$build/classes" "$src" >&2 \
    || { rm -rf "$build"; die "javac failed on $src"; }
  "$jhome/bin/jar" cf "$build/pdi-analysis-shim.jar" -C "$build/classes" .
  {
    echo "description=Stand-in for the analysis-common filters the PDI index uses (tests only)"
    echo "version=$ES_VERSION"
    echo "name=pdi-analysis-shim"
    echo "classname=pdi.analysis.PdiAnalysisShimPlugin"
    echo "java.version=17"
    echo "elasticsearch.version=$ES_VERSION"
  } >"$build/plugin-descriptor.properties"
  rm -rf "$dest"; mkdir -p "$dest"
  cp "$build/pdi-analysis-shim.jar" "$build/plugin-descriptor.properties" "$dest/"
  chmod -R a+rX "$dest"; rm -rf "$build"
  echo "$sum" >"$marker"
}

ensure_user() {
  id -u "$ES_USER" >/dev/null 2>&1 && return 0
  log "creating system user $ES_USER"
  # Concurrent starts may race here: losing the race is fine as long as the user exists afterwards.
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER" 2>/dev/null \
    || id -u "$ES_USER" >/dev/null 2>&1 || die "could not create user $ES_USER"
}

# The Java major version of a JDK home ("17", "21", "25"), read from its release file.
java_major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }

java_home() {
  if [ -n "${ES_JAVA_HOME:-}" ]; then echo "$ES_JAVA_HOME"; return; fi
  # Elasticsearch 8 runs on Java 17+, 9 on 21+. When the default java is too old for the version asked
  # for, take the newest JDK installed beside it (this machine has Temurin 25 next to OpenJDK 17).
  local need=17 home major candidate
  [ "${ES_VERSION%%.*}" -ge 9 ] && need=21
  if command -v java >/dev/null 2>&1; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    major=$(java_major "$home")
    # A JDK without a release file is taken for Elasticsearch 8, as before this check existed.
    if { [ -z "$major" ] && [ "$need" = 17 ]; } || [ "${major:-0}" -ge "$need" ]; then echo "$home"; return; fi
  fi
  for candidate in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidate=${candidate%/}
    [ -x "$candidate/bin/javac" ] && [ "$(java_major "$candidate")" -ge "$need" ] 2>/dev/null && { echo "$candidate"; return; }
  done
  die "Elasticsearch $ES_VERSION needs a JDK $need+ on PATH, in /usr/lib/jvm or via ES_JAVA_HOME"
}

write_config() { # for the node in hand; $1: the node's number in a cluster of $NODES, else empty
  local d="$NODE_DIR"
  mkdir -p "$d/config" "$d/data" "$d/logs" "$d/tmp"
  cp -f "$ES_HOME/config/jvm.options" "$ES_HOME/config/log4j2.properties" "$d/config/"
  mkdir -p "$d/config/jvm.options.d"
  local security="" name="pdi-$INSTANCE" discovery="discovery.type: single-node"
  # This integ-test-zip carries the x-pack-security module (no other x-pack): security would default to
  # on and answer 401 without TLS and users, so switch it off when, and only when, the module is there.
  [ -d "$ES_HOME/modules/x-pack-security" ] && security="xpack.security.enabled: false"
  if [ -n "${1:-}" ]; then
    name="pdi-$INSTANCE-$1"
    discovery=$(cluster_discovery)
  fi
  cat >"$d/config/elasticsearch.yml" <<EOF
# Written by scripts/elasticsearch.sh for instance "$INSTANCE"; rewritten on every start.
cluster.name: pdi-$INSTANCE
node.name: $name
path.data: $d/data
path.logs: $d/logs
network.host: 127.0.0.1
http.port: $PORT
$discovery
# Test machines have small, full disks: never turn indices read-only for disk space.
cluster.routing.allocation.disk.threshold_enabled: false
# Lets test cleanup delete by wildcard (prefix-*).
action.destructive_requires_name: false
$security
EOF
  if is_root; then chown -R "$ES_USER" "$d"; fi
}

# Every node finds the others on their transport ports. The first start names the master-eligible
# nodes that bootstrap the cluster; once it has formed the setting must go (Elastic's advice: a node
# restarted with it and an empty data directory could bootstrap a cluster of its own), so later starts
# leave it out.
cluster_discovery() {
  local i hosts="" masters=""
  for i in $(seq 1 "$NODES"); do
    hosts+="${hosts:+, }\"127.0.0.1:$(state_get "TPORT_$i")\""
    masters+="${masters:+, }\"pdi-$INSTANCE-$i\""
  done
  echo "transport.port: $TPORT"
  echo "discovery.seed_hosts: [$hosts]"
  [ "$(state_get FORMED)" = 1 ] || echo "cluster.initial_master_nodes: [$masters]"
}

# --- commands ---------------------------------------------------------------------------------------
launch() { # starts the node in hand in the background (write_config first); sets LAUNCHER
  local jhome; jhome=$(java_home)
  local -a cmd=(env "ES_JAVA_HOME=$jhome" "ES_PATH_CONF=$NODE_DIR/config" "ES_TMPDIR=$NODE_DIR/tmp"
    "ES_JAVA_OPTS=-Xms$HEAP -Xmx$HEAP ${PDI_ES_JAVA_OPTS:-}" "$ES_HOME/bin/elasticsearch" -d -p "$PIDFILE")
  is_root && cmd=(runuser -u "$ES_USER" -- "${cmd[@]}")
  rm -f "$PIDFILE"
  # The JVM writes gc.log and hs_err files to its working directory: keep them in the node's logs.
  # setsid: the daemon must not share the caller's process group (a test runner's signals).
  # 8>&- 9>&-: the server must not inherit (and so hold) our lock descriptors.
  (cd "$NODE_DIR/logs" && exec setsid "${cmd[@]}" >"$NODE_DIR/logs/console.log" 2>&1 </dev/null 8>&- 9>&-) &
  LAUNCHER=$!
}

start_once() { # one launch attempt on $PORT; 0 when healthy, 1 on a port clash, dies otherwise
  write_config
  launch
  local launcher=$LAUNCHER t0=$SECONDS
  while :; do
    if healthy && es_pid >/dev/null; then
      log "ready in $((SECONDS - t0))s on $URL"
      wait "$launcher" 2>/dev/null || true
      return 0
    fi
    if ! kill -0 "$launcher" 2>/dev/null && ! es_pid >/dev/null; then
      # The launcher ended and no server runs: a failed start.
      # console.log is this attempt's output only (truncated at launch).
      if port_clash; then
        return 1
      fi
      log "Elasticsearch exited during start; its output:"
      show_log
      exit 1
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      log "not healthy after ${START_TIMEOUT}s; its output:"
      show_log
      # The launcher's session holds the CLI and the server it forks, whether or not a pid file exists yet.
      kill_group "$launcher"
      rm -f "$PIDFILE"
      exit 1
    fi
    sleep 1
  done
}

port_clash() { grep -qE 'BindException|Address already in use' "$NODE_DIR/logs/console.log" 2>/dev/null; }

show_log() {
  if [ -s "$NODE_DIR/logs/console.log" ]; then tail -n 60 "$NODE_DIR/logs/console.log" >&2
  else log "(no output yet in $NODE_DIR/logs)"; fi
}

kill_group() { # TERM, then KILL after 30 s, every process of a process group
  local group="$1" i
  kill -TERM -- "-$group" 2>/dev/null || return 0
  for i in $(seq 1 60); do
    kill -0 -- "-$group" 2>/dev/null || return 0
    sleep 0.5
  done
  kill -KILL -- "-$group" 2>/dev/null || true
}

start_watchdog() { # owner pid, then the server pids it watches
  local owner="$1"; shift
  [ $# -gt 0 ] || return 0
  [[ "$owner" =~ ^[0-9]+$ ]] || die "PDI_ES_OWNER_PID must be a pid"
  # Polls every 2 s; exits on its own once the servers are gone. `stop` ends every node of the instance.
  PDI_ES_INSTANCE="$INSTANCE" PDI_ES_RUN_DIR="$RUN_ROOT" setsid bash -c '
    owner=$1 script=$2; shift 2
    alive() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
    while kill -0 "$owner" 2>/dev/null && alive "$@"; do sleep 2; done
    alive "$@" && "$script" stop' _ "$owner" "$(readlink -f "$0")" "$@" \
    >/dev/null 2>&1 </dev/null 8>&- 9>&- &
}

cmd_start() { # $1: the number of nodes asked for, empty when not given
  mkdir -p "$RUN_ROOT"; chmod 1777 "$RUN_ROOT" 2>/dev/null || true
  mkdir -p "$RUN"
  exec 9>"$RUN/.lock"; flock 9   # one start/stop of this instance at a time
  read_state
  local asked="${1:-}"
  if [ -f "$STATE" ] && [ -n "$asked" ] && [ "$asked" != "$NODES" ]; then
    die "instance $INSTANCE has $NODES node(s), not $asked: purge it to change that"
  fi
  [ -f "$STATE" ] || NODES="${asked:-1}"
  if [ "$NODES" != 1 ]; then start_cluster; return; fi
  START_TIMEOUT="${START_TIMEOUT:-120}"
  if es_pid >/dev/null && [ -n "$URL" ] && healthy; then
    # Already running: whoever started it owns it (and its watchdog, if any).
    log "already running"
    echo "ELASTICSEARCH_URL=$URL"; return 0
  fi
  if is_root; then ensure_user; fi
  fetch_and_unzip
  local want="${PDI_ES_PORT:-$PORT}" attempt pid
  for attempt in 1 2 3; do
    if [ -n "$want" ] && ! port_in_use "$want"; then PORT="$want"; else PORT=$(pick_port); fi
    URL="http://127.0.0.1:$PORT"
    printf 'PORT=%s\nURL=%s\n' "$PORT" "$URL" >"$STATE"
    if start_once; then
      if [ -n "${PDI_ES_OWNER_PID:-}" ] && pid=$(es_pid); then start_watchdog "$PDI_ES_OWNER_PID" "$pid"; fi
      echo "ELASTICSEARCH_URL=$URL"; return 0
    fi
    log "port $PORT was taken; trying another"
    want=""
  done
  die "could not bind a port after 3 attempts"
}

# --- a cluster of $NODES nodes ------------------------------------------------------------------------
cluster_state() { # picks every node's HTTP and transport port at the first start
  local i p kind used=" " url=""
  {
    echo "NODES=$NODES"
    for i in $(seq 1 "$NODES"); do
      for kind in PORT TPORT; do
        p=$(pick_port)
        while [[ "$used" == *" $p "* ]]; do p=$(pick_port); done
        used+="$p "
        echo "${kind}_$i=$p"
        [ "$kind" = PORT ] && url+="${url:+,}http://127.0.0.1:$p"
      done
    done
    echo "URL=$url"
  } >"$STATE"
}

cluster_healthy() { # every node in the cluster, health yellow or green, as any node answering sees it
  local one
  for one in ${URL//,/ }; do
    URL="$one" healthy "$NODES" && return 0
  done
  return 1
}

cluster_pids() { # the pids of the running nodes, comma-separated in node order
  local i pid pids=""
  for i in $(seq 1 "$NODES"); do
    node_ctx "$i"
    pid=$(es_pid) && pids+="${pids:+,}$pid"
  done
  echo "$pids"
}

start_cluster() {
  START_TIMEOUT="${START_TIMEOUT:-240}"
  [ -f "$STATE" ] || cluster_state
  read_state
  local i missing=() launchers=() started=()
  for i in $(seq 1 "$NODES"); do
    node_ctx "$i"; es_pid >/dev/null || missing+=("$i")
  done
  if [ ${#missing[@]} = 0 ] && cluster_healthy; then
    log "already running"
    echo "ELASTICSEARCH_URL=$URL"; echo "ELASTICSEARCH_PIDS=$(cluster_pids)"; return 0
  fi
  if is_root; then ensure_user; fi
  fetch_and_unzip
  for i in "${missing[@]}"; do
    node_ctx "$i"
    port_in_use "$PORT" && die "node $i's HTTP port $PORT is taken: purge the instance to pick new ports"
    write_config "$i"; launch; launchers[$i]=$LAUNCHER
  done
  local t0=$SECONDS
  while :; do
    local up=1
    for i in "${missing[@]}"; do
      node_ctx "$i"
      es_pid >/dev/null && continue
      up=0
      if ! kill -0 "${launchers[$i]}" 2>/dev/null; then
        # Its launcher ended and no server runs: a failed start.
        if port_clash; then log "node $i: a port was taken (purge the instance to pick new ones)"
        else log "node $i exited during start; its output:"; show_log; fi
        give_up "${launchers[@]}"
      fi
    done
    if [ "$up" = 1 ] && cluster_healthy; then break; fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      log "not $NODES nodes with health yellow after ${START_TIMEOUT}s; the output of node ${missing[0]}:"
      node_ctx "${missing[0]}"; show_log
      give_up "${launchers[@]}"
    fi
    sleep 1
  done
  for i in "${missing[@]}"; do wait "${launchers[$i]}" 2>/dev/null || true; done
  grep -q '^FORMED=1$' "$STATE" || echo "FORMED=1" >>"$STATE"
  log "node(s) ${missing[*]} ready in $((SECONDS - t0))s; $NODES nodes on $URL"
  if [ -n "${PDI_ES_OWNER_PID:-}" ]; then
    for i in "${missing[@]}"; do node_ctx "$i"; started+=("$(es_pid)"); done
    start_watchdog "$PDI_ES_OWNER_PID" "${started[@]}"
  fi
  echo "ELASTICSEARCH_URL=$URL"; echo "ELASTICSEARCH_PIDS=$(cluster_pids)"
}

give_up() { # a failed cluster start: ends what it launched (whether or not a pid file exists yet)
  local launcher
  for launcher in "$@"; do kill_group "$launcher"; done
  stop_cluster >/dev/null
  exit 1
}

stop_cluster() { # every node at once: TERM, then KILL past 60 s
  local i pid pids=() n
  for i in $(seq 1 "$NODES"); do
    node_ctx "$i"
    pid=$(es_pid) && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
  done
  for n in $(seq 1 120); do
    local alive=()
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    pids=("${alive[@]}")
    [ ${#pids[@]} = 0 ] && break
    sleep 0.5
  done
  for pid in "${pids[@]}"; do
    log "still alive after 60s; killing $pid"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  done
  for i in $(seq 1 "$NODES"); do rm -f "$RUN/node-$i/es.pid"; done
  echo "stopped"
}

status_cluster() {
  local i pid running=0 lines=""
  for i in $(seq 1 "$NODES"); do
    node_ctx "$i"
    if pid=$(es_pid); then running=$((running + 1)); lines+="node $i: running, pid $pid, http://127.0.0.1:$PORT"$'\n'
    else lines+="node $i: stopped, http://127.0.0.1:$PORT"$'\n'; fi
  done
  if [ "$running" = 0 ]; then echo "stopped"; printf '%s' "$lines"; return 3; fi
  if [ "$running" = "$NODES" ]; then echo "running"; else echo "degraded: $running of $NODES nodes running"; fi
  printf '%s' "$lines"
  echo "ELASTICSEARCH_URL=$URL"; echo "ELASTICSEARCH_PIDS=$(cluster_pids)"
  [ "$running" = "$NODES" ] || return 4
}

stop_instance() {
  local pid i
  pid=$(es_pid) || { echo "stopped"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 120); do            # up to 60 s for a clean shutdown
    kill -0 "$pid" 2>/dev/null || { rm -f "$PIDFILE"; echo "stopped"; return 0; }
    sleep 0.5
  done
  log "still alive after 60s; killing $pid"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  rm -f "$PIDFILE"; echo "stopped"
}

cmd_stop() {
  [ -d "$RUN" ] || { echo "stopped"; return 0; }
  exec 9>"$RUN/.lock"; flock 9
  read_state
  if [ "$NODES" != 1 ]; then stop_cluster; else stop_instance; fi
}

cmd_status() {
  read_state
  [ "$NODES" != 1 ] && { status_cluster; return; }
  if es_pid >/dev/null && [ -n "$URL" ]; then
    echo "running"; echo "ELASTICSEARCH_URL=$URL"; return 0
  fi
  echo "stopped"; return 3
}

cmd_purge() {
  cmd_stop
  rm -rf "$RUN"
}

nodes=""
if [ "${1:-}" = start ] && [ $# -gt 1 ]; then
  case "${2:-}" in
    --nodes) nodes="${3:-}" ;;
    --nodes=*) nodes="${2#--nodes=}" ;;
    *) echo "usage: $0 start [--nodes N]" >&2; exit 2 ;;
  esac
  [[ "$nodes" =~ ^[1-9]$ ]] || { echo "--nodes takes 1 to 9" >&2; exit 2; }
fi

case "${1:-}" in
  start) cmd_start "$nodes" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  purge) cmd_purge ;;
  java) java_home ;;
  *) echo "usage: $0 start [--nodes N]|stop|status|purge|java" >&2; exit 2 ;;
esac
