#!/usr/bin/env bash
# Runs a real Elasticsearch on loopback for integration tests and CI.
#
#   scripts/elasticsearch.sh start    # prints ELASTICSEARCH_URL=http://127.0.0.1:PORT as its last line
#   scripts/elasticsearch.sh stop     # ends it and waits; keeps its data and port for the next start
#   scripts/elasticsearch.sh status   # "running" + the URL (exit 0), or "stopped" (exit 3)
#   scripts/elasticsearch.sh purge    # stop, then delete the instance directory (data, logs, state)
#   scripts/elasticsearch.sh java     # the JDK it would run PDI_ES_VERSION on; exit 1 when there is none
#
# Environment (all optional):
#   PDI_CACHE_DIR      where the distribution zip is fetched and unzipped (default ~/.cache/pdi)
#   PDI_ES_VERSION     default 9.5.4 (the newest integ-test-zip Maven Central serves: no bundled JDK);
#                      9.x needs a JDK 21+, looked for in /usr/lib/jvm. pdi does not run on 8.x.
#   PDI_ES_INSTANCE    name of an independent instance (default "default"); tests use their own
#   PDI_ES_RUN_DIR     parent of instance directories (default ${TMPDIR:-/tmp}/pdi-es)
#   PDI_ES_PORT        HTTP port; default: the port this instance used last, else a random free one
#   PDI_ES_HEAP        JVM heap (default 512m: the machine has 2 cores and others run things too)
#   PDI_ES_USER        user to run as when invoked as root (default pdi-es; ES refuses to run as root)
#   PDI_ES_OWNER_PID   when set, a watchdog stops this instance once that process is gone (test runs
#                      that crash before their teardown do not leak a JVM)
#   PDI_ES_START_TIMEOUT  seconds to wait for cluster health yellow (default 120)
set -euo pipefail

ES_VERSION="${PDI_ES_VERSION:-9.5.4}"
CACHE="${PDI_CACHE_DIR:-$HOME/.cache/pdi}"
INSTANCE="${PDI_ES_INSTANCE:-default}"
RUN_ROOT="${PDI_ES_RUN_DIR:-${TMPDIR:-/tmp}/pdi-es}"
ES_USER="${PDI_ES_USER:-pdi-es}"
HEAP="${PDI_ES_HEAP:-512m}"
START_TIMEOUT="${PDI_ES_START_TIMEOUT:-120}"
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
ZIP="$CACHE/elasticsearch-${ES_VERSION}.zip"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# No leading dot: the instance directory is deleted by `purge`, so "." or ".." must never name one.
[[ "$INSTANCE" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]] || { echo "PDI_ES_INSTANCE must be letters, digits, _ . - (no leading dot)" >&2; exit 2; }
RUN="$RUN_ROOT/$INSTANCE"
STATE="$RUN/state"       # PORT=... and URL=... of this instance (kept across stop/start)
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

read_state() { # sets PORT and URL from the state file, if any
  PORT=""; URL=""
  if [ -f "$STATE" ]; then
    PORT=$(sed -n 's/^PORT=//p' "$STATE"); URL=$(sed -n 's/^URL=//p' "$STATE")
  fi
}

es_pid() { # pid of this instance's server, when alive and really ours
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against pid reuse: the process must be an Elasticsearch whose config is this instance's.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Djava.io.tmpdir=$RUN/tmp " || return 1
  echo "$pid"
}

healthy() { # cluster health yellow or green on $URL
  local body
  body=$(http_get "$URL/_cluster/health?wait_for_status=yellow&timeout=2s" 2>/dev/null) || return 1
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

write_config() {
  mkdir -p "$RUN/config" "$RUN/data" "$RUN/logs" "$RUN/tmp"
  cp -f "$ES_HOME/config/jvm.options" "$ES_HOME/config/log4j2.properties" "$RUN/config/"
  mkdir -p "$RUN/config/jvm.options.d"
  local security=""
  # This integ-test-zip carries the x-pack-security module (no other x-pack): security would default to
  # on and answer 401 without TLS and users, so switch it off when, and only when, the module is there.
  [ -d "$ES_HOME/modules/x-pack-security" ] && security="xpack.security.enabled: false"
  cat >"$RUN/config/elasticsearch.yml" <<EOF
# Written by scripts/elasticsearch.sh for instance "$INSTANCE"; rewritten on every start.
cluster.name: pdi-$INSTANCE
node.name: pdi-$INSTANCE
path.data: $RUN/data
path.logs: $RUN/logs
network.host: 127.0.0.1
http.port: $PORT
discovery.type: single-node
# Test machines have small, full disks: never turn indices read-only for disk space.
cluster.routing.allocation.disk.threshold_enabled: false
# Lets test cleanup delete by wildcard (prefix-*).
action.destructive_requires_name: false
$security
EOF
  if is_root; then chown -R "$ES_USER" "$RUN"; fi
}

# --- commands ---------------------------------------------------------------------------------------
start_once() { # one launch attempt on $PORT; 0 when healthy, 1 on a port clash, dies otherwise
  write_config
  local jhome; jhome=$(java_home)
  local -a cmd=(env "ES_JAVA_HOME=$jhome" "ES_PATH_CONF=$RUN/config" "ES_TMPDIR=$RUN/tmp"
    "ES_JAVA_OPTS=-Xms$HEAP -Xmx$HEAP ${PDI_ES_JAVA_OPTS:-}" "$ES_HOME/bin/elasticsearch" -d -p "$PIDFILE")
  is_root && cmd=(runuser -u "$ES_USER" -- "${cmd[@]}")
  rm -f "$PIDFILE"
  local t0=$SECONDS
  # The JVM writes gc.log and hs_err files to its working directory: keep them in the instance's logs.
  # setsid: the daemon must not share the caller's process group (a test runner's signals).
  # 8>&- 9>&-: the server must not inherit (and so hold) our lock descriptors.
  (cd "$RUN/logs" && exec setsid "${cmd[@]}" >"$RUN/logs/console.log" 2>&1 </dev/null 8>&- 9>&-) &
  local launcher=$!
  while :; do
    if healthy && es_pid >/dev/null; then
      log "ready in $((SECONDS - t0))s on $URL"
      wait "$launcher" 2>/dev/null || true
      return 0
    fi
    if ! kill -0 "$launcher" 2>/dev/null && ! es_pid >/dev/null; then
      # The launcher ended and no server runs: a failed start.
      # console.log is this attempt's output only (truncated at launch).
      if grep -qE 'BindException|Address already in use' "$RUN/logs/console.log" 2>/dev/null; then
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

show_log() {
  if [ -s "$RUN/logs/console.log" ]; then tail -n 60 "$RUN/logs/console.log" >&2
  else log "(no output yet in $RUN/logs)"; fi
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

start_watchdog() {
  local owner="$1" pid; pid=$(es_pid) || return 0
  [[ "$owner" =~ ^[0-9]+$ ]] || die "PDI_ES_OWNER_PID must be a pid"
  # Polls every 2 s; exits on its own once the server is gone.
  PDI_ES_INSTANCE="$INSTANCE" PDI_ES_RUN_DIR="$RUN_ROOT" setsid bash -c '
    while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 2; done
    kill -0 "$2" 2>/dev/null && "$3" stop' _ "$owner" "$pid" "$(readlink -f "$0")" \
    >/dev/null 2>&1 </dev/null 8>&- 9>&- &
}

cmd_start() {
  mkdir -p "$RUN_ROOT"; chmod 1777 "$RUN_ROOT" 2>/dev/null || true
  mkdir -p "$RUN"
  exec 9>"$RUN/.lock"; flock 9   # one start/stop of this instance at a time
  read_state
  if es_pid >/dev/null && [ -n "$URL" ] && healthy; then
    # Already running: whoever started it owns it (and its watchdog, if any).
    log "already running"
    echo "ELASTICSEARCH_URL=$URL"; return 0
  fi
  if is_root; then ensure_user; fi
  fetch_and_unzip
  local want="${PDI_ES_PORT:-$PORT}" attempt
  for attempt in 1 2 3; do
    if [ -n "$want" ] && ! port_in_use "$want"; then PORT="$want"; else PORT=$(pick_port); fi
    URL="http://127.0.0.1:$PORT"
    printf 'PORT=%s\nURL=%s\n' "$PORT" "$URL" >"$STATE"
    if start_once; then
      [ -n "${PDI_ES_OWNER_PID:-}" ] && start_watchdog "$PDI_ES_OWNER_PID"
      echo "ELASTICSEARCH_URL=$URL"; return 0
    fi
    log "port $PORT was taken; trying another"
    want=""
  done
  die "could not bind a port after 3 attempts"
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
  stop_instance
}

cmd_status() {
  read_state
  if es_pid >/dev/null && [ -n "$URL" ]; then
    echo "running"; echo "ELASTICSEARCH_URL=$URL"; return 0
  fi
  echo "stopped"; return 3
}

cmd_purge() {
  cmd_stop
  rm -rf "$RUN"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  purge) cmd_purge ;;
  java) java_home ;;
  *) echo "usage: $0 start|stop|status|purge|java" >&2; exit 2 ;;
esac
