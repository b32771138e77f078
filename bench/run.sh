#!/usr/bin/env bash
# The load benchmark of issue 10: our guide API against a bare net/http
# ceiling and a peer (PocketBase), on one core of server time.
#
#   bench/run.sh            # the full run (3 runs of each measurement; 15 min on 2 cores with SCALE_BENCH=0)
#   bench/run.sh --quick    # one short run of each, a smoke test (~3 min)
#
# Every server under test (ours, the ceiling, the peer, and the PostgreSQL
# backends of our database when PIN_POSTGRES=1) runs on core SERVER_CPU
# with GOMAXPROCS=1; vegeta
# drives it from core CLIENT_CPU. Each workload is measured twice: WORKERS
# connections sending as fast as they can (-rate=0: the maximum
# throughput), then a fixed rate of FIXED_FRACTION of that maximum (the
# latency). The results replace the headline and results sections of
# BENCHMARKS.md and bench/latency.png; raw results stay in bench/results/
# (not committed).
#
# Settings: the variables below, each overridable from the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
export PATH="$PATH:/usr/local/go/bin"

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown argument $arg (want --quick)" >&2; exit 2 ;;
  esac
done

# ---- settings ---------------------------------------------------------------
RUNS=${RUNS:-3}                      # runs of each measurement; the median is published
MAX_DURATION=${MAX_DURATION:-4s}     # one run at the maximum rate
FIXED_DURATION=${FIXED_DURATION:-4s} # one run at the fixed rate
WARMUP=${WARMUP:-1s}                 # discarded run before the measured ones
WORKERS=${WORKERS:-50}               # concurrent connections (so 50 concurrent writers on the write workloads)
FIXED_FRACTION=${FIXED_FRACTION:-0.5} # the fixed rate, as a share of the measured maximum
USERS=${USERS:-50}                   # travellers registered through the API
KEYS_PER_USER=${KEYS_PER_USER:-4}    # API keys per traveller (1000 requests/minute each, the API's maximum)
CONVS_PER_USER=${CONVS_PER_USER:-2}  # conversations per traveller, each with another expert
PEER_USERS=${PEER_USERS:-50}         # users of the peer
TARGETS_PER_RUN=${TARGETS_PER_RUN:-60000} # unique request bodies per write run
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
NICE=${NICE:--10}                    # niceness of the servers and vegeta (as root), so that other work on the machine disturbs less
BENCH_LOG_LEVEL=${BENCH_LOG_LEVEL:-info} # our server's LOG_LEVEL: info (the default) logs every request
WORKLOADS=${WORKLOADS:-list detail packages booking_user booking_key message mixed quotebook} # ours; the ceiling and the peer follow (quotebook: the property API, ours only)
WITH_CEILING=${WITH_CEILING:-1}
FIXED_PHASE=${FIXED_PHASE:-1}        # 0: the maximum only, no run at the fixed rate (bench/regress.sh)
SERVER_SRC=${SERVER_SRC:-.}          # the tree our server is built from: another commit's worktree to compare (the bisect of issue 47)
WITH_POSTGRES=${WITH_POSTGRES:-1}
PIN_POSTGRES=${PIN_POSTGRES:-1}      # move the PostgreSQL backends of our database to SERVER_CPU
# Our server's PostgreSQL pool per database (DATABASE_MAX_CONNS). With the
# backends pinned, the database server here is one core, and the README
# sizes the pool at 2-4 per database core: 4. The default (at least 8)
# time-slices twice the backends on that core, which raises the p99 at the
# fixed rate without raising the maximum (BENCHMARKS.md, "Method").
PG_POOL=${PG_POOL:-4}
WITH_PEER=${WITH_PEER:-1}
SCALE=${SCALE:-1}                    # SAMPLE_SCALE of our server: N× the sample catalogue and property inventory
SCALE_BENCH=${SCALE_BENCH:-1}        # also run the store-level scale benchmarks (catalogue growth curve, property date search) and draw their plot (OUT_SCALE_PNG)
SCALE_LIST=${SCALE_LIST:-1,10,100}   # the catalogue scales of the growth curve
PROPERTY_SCALE=${PROPERTY_SCALE:-80} # the property date search's inventory: 80× is about 10,000 properties
PROPERTY_DAYS=${PROPERTY_DAYS:-366}  # ... with a year of calendar per room type, as issue 16 sets it
PG_URL_BASE=${PG_URL_BASE:-postgres://postgres@127.0.0.1:5432}
PG_URL_PARAMS=${PG_URL_PARAMS:-?sslmode=disable}
OURS_PORT=${OURS_PORT:-28080}        # and OURS_PORT+1 for the property API
CEILING_PORT=${CEILING_PORT:-28082}
PEER_PORT=${PEER_PORT:-28090}
if [ "$QUICK" = 1 ]; then
  RUNS=${QUICK_RUNS:-1}; MAX_DURATION=${QUICK_DURATION:-2s}; FIXED_DURATION=${QUICK_DURATION:-2s}
  WARMUP=${QUICK_WARMUP:-500ms}; TARGETS_PER_RUN=${QUICK_TARGETS:-30000}
fi
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT_DIR=${OUT_DIR:-bench/results/$STAMP$([ "$QUICK" = 1 ] && echo -quick || true)}
# The full run publishes into BENCHMARKS.md; --quick only into OUT_DIR, unless told.
if [ "$QUICK" = 1 ]; then
  OUT_MD=${OUT_MD:-$OUT_DIR/BENCHMARKS.md}; OUT_PNG=${OUT_PNG:-$OUT_DIR/latency.png}; OUT_SUMMARY=${OUT_SUMMARY:-$OUT_DIR/summary.json}
  OUT_SCALE_PNG=${OUT_SCALE_PNG:-$OUT_DIR/scale.png}
else
  OUT_MD=${OUT_MD:-BENCHMARKS.md}; OUT_PNG=${OUT_PNG:-bench/latency.png}; OUT_SUMMARY=${OUT_SUMMARY:-bench/summary.json}
  OUT_SCALE_PNG=${OUT_SCALE_PNG:-bench/scale.png}
fi
# ------------------------------------------------------------------------------

WORK=$(mktemp -d /tmp/wayfarer-bench.XXXXXX)
RESULTS=$WORK/results.jsonl
BIN=$WORK/bin
CLK_TCK=$(getconf CLK_TCK)
T0=$(date +%s)
mkdir -p "$BIN" "$OUT_DIR"
: >"$RESULTS"

PRIO=()
if [ "$(id -u)" = 0 ] && [ "$NICE" != 0 ]; then PRIO=(nice -n "$NICE"); fi

log() { printf '\n== [%ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

PIDS=()          # servers this script started
PG_DB=""         # the database this script created
PG_PROPERTY_DB="" # and the property API's
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  local db
  for db in $PG_DB $PG_PROPERTY_DB; do
    psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  done
  if [ "${KEEP_WORK:-0}" = 1 ]; then echo "work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_pid() { # stop one server we started, and forget it
  local pid=$1 keep=() p
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for p in "${PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
  PIDS=("${keep[@]}")
}

port_free() { # PORT: refuse to start a server where something already listens
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    die "port $1 is already in use on 127.0.0.1; pick other ports (OURS_PORT, CEILING_PORT, PEER_PORT)"
  fi
}

wait_http() { # URL [seconds]
  local i
  for i in $(seq 1 $(( ${2:-60} * 10 ))); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  die "no answer from $1"
}

apt_install() {
  [ "$(id -u)" = 0 ] || die "need $* (run as root, or install them)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ---- tools --------------------------------------------------------------------
log "tools"
command -v go >/dev/null || die "Go is not installed (README: only Go 1.26 is needed)"
command -v taskset >/dev/null || apt_install util-linux
command -v curl >/dev/null || apt_install curl
[ "$(nproc)" -ge 2 ] || die "needs 2 cores: one for the server, one for vegeta"
if [ "$WITH_POSTGRES" = 1 ]; then
  pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
  command -v pg_isready >/dev/null || apt_install postgresql postgresql-client
  if ! pg_up; then
    for v in $(ls /etc/postgresql 2>/dev/null); do pg_ctlcluster --skip-systemctl-redirect "$v" main start || true; done
    for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  fi
  pg_up || die "PostgreSQL is not reachable on 127.0.0.1:5432 (or run with WITH_POSTGRES=0)"
  if ! psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qtAc 'SELECT 1' >/dev/null 2>&1; then
    # A stock Debian cluster asks local TCP clients for a password (as in .ci/run).
    su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null 2>&1 || true
    PG_URL_BASE=postgres://postgres:postgres@127.0.0.1:5432
    psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qtAc 'SELECT 1' >/dev/null || die "cannot connect to PostgreSQL as postgres (set PG_URL_BASE)"
  fi
fi

log "build: our server, the ceiling, benchtool, vegeta (go tool), the peer"
(cd "$SERVER_SRC" && go build -o "$BIN/wayfarer-bench-guide" ./cmd/server)
# bench/ is a module of its own (bench/go.mod): benchtool, the ceiling and
# vegeta, so that benchtool reads results with the vegeta that wrote them.
(cd bench && go build -o "$BIN/wayfarer-bench-ceiling" ./ceiling && go build -o "$BIN/benchtool" ./benchtool)
(cd bench && go tool vegeta -version >/dev/null)          # builds the version pinned in bench/go.mod
cp "$(cd bench && go tool -n vegeta)" "$BIN/vegeta"     # and keeps it, so that a go.mod edited meanwhile cannot change it
if [ "$WITH_PEER" = 1 ]; then (cd bench/peer && go build -o "$BIN/wayfarer-bench-peer" .); fi
VEGETA_VERSION=$(cd bench && go list -m -f '{{.Version}}' github.com/tsenart/vegeta/v12)
PB_VERSION=$(cd bench/peer && go list -m -f '{{.Version}}' github.com/pocketbase/pocketbase)

# ---- measuring ------------------------------------------------------------------
# vegeta runs on the client core; the same flags for every system.
attack() { # TARGETS OUTPUT DURATION RATE
  "${PRIO[@]}" taskset -c "$CLIENT_CPU" "$BIN/vegeta" attack -format=json -targets="$1" -output="$2" -duration="$3" \
    -rate="$4" -workers="$WORKERS" -max-workers="$WORKERS" -timeout=10s -max-body=0 -http2=false -keepalive=true
}

locked_lines() { # LOGFILE: SQLite lock errors the server logged so far
  if [ -n "${1:-}" ] && [ -f "$1" ]; then grep -c -E 'database is locked|SQLITE_BUSY' "$1" || true; else echo 0; fi
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print 0; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# chain_attack STATE BASE TARGETS OUTPUT DURATION RATE RUN: attack for
# quotebook, whose bookings book the quotes the attack creates (benchtool
# chain: vegeta's library with attack's settings).
chain_attack() {
  "${PRIO[@]}" taskset -c "$CLIENT_CPU" "$BIN/benchtool" chain -state "$1" -base "$2" -targets "$3" -output "$4" -duration "$5" \
    -rate "$6" -workers "$WORKERS" -run "$7"
}

# measure SYSTEM DB WORKLOAD BASE PID STATE LOG: the warm-up, RUNS at the
# maximum rate, then RUNS at FIXED_FRACTION of their median.
measure() {
  local system=$1 db=$2 workload=$3 base=$4 pid=$5 state=$6 logf=$7
  local dir=$WORK/runs/$system-$db-$workload
  mkdir -p "$dir"
  gen() { # RUN → target file
    taskset -c "$CLIENT_CPU" "$BIN/benchtool" targets -state "$state" -workload "$workload" -base "$base" \
      -count "$TARGETS_PER_RUN" -run "$1" -out "$dir/targets-$1.json"
    echo "$dir/targets-$1.json"
  }
  hit() { # TARGETS OUTPUT DURATION RATE RUN
    if [ "$workload" = quotebook ]; then chain_attack "$state" "$base" "$@"; else attack "$1" "$2" "$3" "$4"; fi
  }
  drain() { # our server's background jobs settle before a run, so that it does not pay for the backlog of the one before
    [ "$system" = ours ] || return 0
    local n last="" same=0 i
    for i in $(seq 1 600); do # at most 120 s
      n=$(curl -s "http://127.0.0.1:$OURS_PORT/metrics" | awk '/^jobs_pending / {print $2}')
      # Jobs due later (reminders, purges) never leave the count: settled
      # is the count unchanged for a second.
      if [ "$n" = "$last" ]; then same=$((same + 1)); else same=0; last=$n; fi
      [ "$same" -ge 5 ] && return 0
      sleep 0.2
    done
    echo "   warning: background jobs still moving before $workload ($n pending)" >&2
  }
  one() { # PHASE RUN RATE DURATION → prints the summary line
    local phase=$1 run=$2 rate=$3 duration=$4 t cpu busy tot l0 l1 w0 w1 res=$dir/$1-$2.bin
    t=$(gen "$run")
    drain
    kill -0 "$pid" 2>/dev/null || die "$system stopped before $workload (see its log in $WORK)"
    l0=$(locked_lines "$logf")
    local extra=""
    if [ "$db" = postgres ]; then extra=$(pg_backends); fi
    "$BIN/benchtool" cpu -pid "$pid" -extra "$extra" -core "$SERVER_CPU" -save "$dir/cpu.json"; w0=$(date +%s%N)
    hit "$t" "$res" "$duration" "$rate" "$run"
    w1=$(date +%s%N); read -r cpu busy tot < <("$BIN/benchtool" cpu -pid "$pid" -extra "$extra" -core "$SERVER_CPU" -since "$dir/cpu.json")
    if [ "$db" = postgres ] && [ "$(pg_backends)" != "$extra" ]; then
      # A backend that came or went during the run is missing from the
      # count: the per-CPU-second figure of this run is overstated.
      echo "pg-backends-changed $workload $phase $run: $extra -> $(pg_backends)" >>"$WORK/notes"
      echo "   warning: PostgreSQL backends changed during $workload $phase run $run; its CPU figure is overstated" >&2
    fi
    l1=$(locked_lines "$logf")
    "$BIN/benchtool" summarize -results "$res" -system "$system" -db "$db" -workload "$workload" -phase "$phase" \
      -run "$run" -workers "$WORKERS" -rate "${rate%/s}" -cpu-ticks "$cpu" -clk-tck "$CLK_TCK" \
      -core-busy-ticks "$busy" -core-total-ticks "$tot" -cpu-basis "$CPU_BASIS" \
      -wall "$(( (w1 - w0) / 1000000 ))ms" -locked $((l1 - l0)) -rss-kb "$("$BIN/benchtool" rss -pid "$pid")" -probe "$t" | tee -a "$RESULTS"
    rm -f "$res" "$t"
  }
  local t i line tps=() max rate
  t=$(gen 0)
  hit "$t" /dev/null "$WARMUP" 0 0 || true
  rm -f "$t"
  for i in $(seq 1 "$RUNS"); do
    line=$(one max "$i" 0 "$MAX_DURATION")
    tps+=("$(sed -n 's/.*"throughput":\([0-9.e+-]*\).*/\1/p' <<<"$line")")
  done
  max=$(printf '%s\n' "${tps[@]}" | median)
  rate=$(awk -v m="$max" -v f="$FIXED_FRACTION" 'BEGIN {r = int(m * f); if (r < 1) r = 1; print r}')
  if [ "$FIXED_PHASE" = 1 ]; then
    for i in $(seq 1 "$RUNS"); do
      one fixed "$((100 + i))" "$rate/s" "$FIXED_DURATION" >/dev/null
    done
  fi
  printf '   %-8s %-8s %-13s max %8.0f/s  (fixed rate %s/s)\n' "$system" "$db" "$workload" "$max" "$rate" >&2
  kill -0 "$pid" 2>/dev/null || die "$system stopped during $workload (see its log in $WORK)"
}

# start_ours DATABASE_URL PROPERTY_DATABASE_URL DIR: our server on fresh
# databases with the sample data, limits out of the way, pinned to the
# server core.
start_ours() {
  local url=$1 property_url=$2 dir=$3
  mkdir -p "$dir"
  port_free "$OURS_PORT"; port_free "$((OURS_PORT + 1))"
  env -u REDIS_URL -u S3_BUCKET -u IDP_A_ISSUER -u IDP_B_ISSUER \
    GOMAXPROCS=1 GUIDE_ADDR="127.0.0.1:$OURS_PORT" PROPERTY_ADDR="127.0.0.1:$((OURS_PORT + 1))" \
    GUIDE_DATABASE_URL="$url" PROPERTY_DATABASE_URL="$property_url" AVATAR_DIR="$dir/avatars" DATABASE_MAX_CONNS="$PG_POOL" \
    SAMPLE_DATA=on SAMPLE_SCALE="$SCALE" DEMO_PASSWORD=bench-demo-password LOG_LEVEL="$BENCH_LOG_LEVEL" \
    GUIDE_PUBLIC_RATE_LIMIT=1000000000 GUIDE_AUTH_RATE_LIMIT=1000000000 PROPERTY_RATE_LIMIT=1000000000 \
    JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    REALTIME_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    "${PRIO[@]}" taskset -c "$SERVER_CPU" "$BIN/wayfarer-bench-guide" 2>"$dir/server.log" &
  OURS_PID=$!
  PIDS+=("$OURS_PID")
  wait_http "http://127.0.0.1:$OURS_PORT/readyz" 120
  kill -0 "$OURS_PID" 2>/dev/null || die "our server stopped at start (see $dir/server.log)"
}

reset_peak_rss() { echo 5 >"/proc/$1/clear_refs" 2>/dev/null || true; } # VmHWM := VmRSS

CPU_BASIS=process # what "per CPU-second" divides by: the server's CPU time (with its PostgreSQL backends)
ours_phase() { # DB URL PROPERTY_URL
  local db=$1 url=$2 property_url=$3 dir=$WORK/$1 capture=() property=() base
  [ "$db" = sqlite ] && capture=(-capture)
  [[ " $WORKLOADS " == *" quotebook "* ]] && property=(-property "http://127.0.0.1:$((OURS_PORT + 1))")
  log "ours on $db: start on a fresh database with the sample data"
  start_ours "$url" "$property_url" "$dir"
  log "ours on $db: register $USERS users, $((USERS * KEYS_PER_USER)) API keys, $((USERS * CONVS_PER_USER)) conversations"
  "$BIN/benchtool" setup -base "http://127.0.0.1:$OURS_PORT" -out "$dir" -users "$USERS" \
    -keys-per-user "$KEYS_PER_USER" -convs-per-user "$CONVS_PER_USER" "${capture[@]}" "${property[@]}"
  if [ "${#property[@]}" -gt 0 ]; then
    # As BenchmarkWriteQuoteBook does: every night open and with units to
    # spare, so that no quote of the run is refused for want of a room
    # (the sample's calendar has sold-out and closed nights).
    local open_all="UPDATE calendar SET total_units = total_units + 1000000, closed = FALSE, closed_to_arrival = FALSE, closed_to_departure = FALSE, min_stay = 1"
    if [ "$db" = sqlite ]; then
      command -v sqlite3 >/dev/null || apt_install sqlite3
      sqlite3 -cmd '.timeout 10000' "$property_url" "$open_all"
    else
      psql "$property_url" -qc "$open_all" >/dev/null
    fi
  fi
  echo "setup-rss-kb $("$BIN/benchtool" rss -pid "$OURS_PID")" >>"$WORK/notes"
  reset_peak_rss "$OURS_PID"
  log "ours on $db: measure"
  for w in $WORKLOADS; do
    base="http://127.0.0.1:$OURS_PORT"
    [ "$w" = quotebook ] && base="http://127.0.0.1:$((OURS_PORT + 1))"
    measure ours "$db" "$w" "$base" "$OURS_PID" "$dir/state.json" "$dir/server.log"
  done
  grep -c -E 'database is locked|SQLITE_BUSY' "$dir/server.log" >"$WORK/$db-locked-total" || true
  stop_pid "$OURS_PID"
}

# pg_backends: the PostgreSQL backends serving our database (comma-
# separated). With PIN_POSTGRES=1 they are moved to the server core (and
# niced like our server), so that our server and its database share one
# core; other databases' backends are left alone.
pg_backends() {
  local pids pid
  pids=$(psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qtAc "SELECT pid FROM pg_stat_activity WHERE datname IN ('$PG_DB', '$PG_PROPERTY_DB') ORDER BY pid" 2>/dev/null || true)
  if [ "$PIN_POSTGRES" = 1 ]; then
    for pid in $pids; do
      taskset -p -c "$SERVER_CPU" "$pid" >/dev/null 2>&1 || true
      [ "${#PRIO[@]}" = 0 ] || renice -n "$NICE" -p "$pid" >/dev/null 2>&1 || true
    done
  fi
  echo $pids | tr ' ' ','
}

# ---- 1. ours on SQLite ------------------------------------------------------------
ours_phase sqlite "$WORK/sqlite/guide.db" "$WORK/sqlite/property.db"

# ---- 2. the ceiling -----------------------------------------------------------------
if [ "$WITH_CEILING" = 1 ]; then
log "ceiling: bare net/http answering the recorded bytes"
port_free "$CEILING_PORT"
GOMAXPROCS=1 "${PRIO[@]}" taskset -c "$SERVER_CPU" "$BIN/wayfarer-bench-ceiling" -addr "127.0.0.1:$CEILING_PORT" \
  -manifest "$WORK/sqlite/bodies/manifest.json" 2>"$WORK/ceiling.log" &
CEILING_PID=$!
PIDS+=("$CEILING_PID")
wait_http "http://127.0.0.1:$CEILING_PORT/api/v1/experts"
kill -0 "$CEILING_PID" 2>/dev/null || die "the ceiling stopped at start (see $WORK/ceiling.log)"
for w in $WORKLOADS; do
  [ "$w" = quotebook ] && continue # no recorded answers of the property API
  if [ "$w" = booking_key ]; then # the same requests and answers as booking_user
    [[ " $WORKLOADS " == *" booking_user "* ]] && continue
    w=booking_user
  fi
  measure ceiling "" "$w" "http://127.0.0.1:$CEILING_PORT" "$CEILING_PID" "$WORK/sqlite/state.json" ""
done
stop_pid "$CEILING_PID"
fi

# ---- 3. the peer ----------------------------------------------------------------------
if [ "$WITH_PEER" = 1 ]; then
  log "peer: PocketBase $PB_VERSION with the same experts and packages"
  mkdir -p "$WORK/peer"
  port_free "$PEER_PORT"
  PEER_SEED="$WORK/sqlite/peer-seed.json" PEER_STATE="$WORK/peer/state.json" PEER_USERS="$PEER_USERS" \
    GOMAXPROCS=1 "${PRIO[@]}" taskset -c "$SERVER_CPU" "$BIN/wayfarer-bench-peer" serve --http="127.0.0.1:$PEER_PORT" --dir="$WORK/peer/pb_data" \
    >"$WORK/peer/peer.log" 2>&1 &
  PEER_PID=$!
  PIDS+=("$PEER_PID")
  wait_http "http://127.0.0.1:$PEER_PORT/api/health" 180
  kill -0 "$PEER_PID" 2>/dev/null || die "the peer stopped at start (see $WORK/peer/peer.log)"
  [ -s "$WORK/peer/state.json" ] || die "the peer wrote no state (see $WORK/peer/peer.log)"
  reset_peak_rss "$PEER_PID"
  peer_workloads=""
  for w in $WORKLOADS; do
    case "$w" in
      list) peer_workloads+=" peer_list" ;;
      packages) peer_workloads+=" peer_packages" ;;
      booking_user|booking_key) [[ "$peer_workloads" == *peer_create* ]] || peer_workloads+=" peer_create" ;;
    esac
  done
  for w in $peer_workloads; do
    measure peer sqlite "$w" "http://127.0.0.1:$PEER_PORT" "$PEER_PID" "$WORK/peer/state.json" "$WORK/peer/peer.log"
  done
  stop_pid "$PEER_PID"
fi

# ---- 4. ours on PostgreSQL ----------------------------------------------------------------
if [ "$WITH_POSTGRES" = 1 ]; then
  PG_DB="wayfarer_bench_$$" PG_PROPERTY_DB="wayfarer_bench_property_$$"
  psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qc "CREATE DATABASE $PG_DB" -qc "CREATE DATABASE $PG_PROPERTY_DB" >/dev/null
  ours_phase postgres "$PG_URL_BASE/$PG_DB$PG_URL_PARAMS" "$PG_URL_BASE/$PG_PROPERTY_DB$PG_URL_PARAMS"
  psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qc "DROP DATABASE $PG_DB" -qc "DROP DATABASE $PG_PROPERTY_DB" >/dev/null && PG_DB="" PG_PROPERTY_DB=""
fi

# ---- 5. scale: catalogue growth curve and property date search ------------------------------------
# Store-level Go benchmarks (uncached queries, no HTTP) and the uncached
# catalogue through the router (BenchmarkCatalogHTTP), pinned to the
# server core; results in $OUT_DIR/scale.txt, the plot in $OUT_SCALE_PNG
# (bench/scale.png in a full run).
if [ "$SCALE_BENCH" = 1 ]; then
  log "scale: catalogue pages at x${SCALE_LIST//,/, x}; property date search at x$PROPERTY_SCALE, $PROPERTY_DAYS nights"
  scale_env=()
  if [ "$WITH_POSTGRES" = 1 ]; then
    PG_DB="wayfarer_scale_$$"
    psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qc "CREATE DATABASE $PG_DB" >/dev/null
    scale_env=(TEST_POSTGRES_URL="$PG_URL_BASE/$PG_DB$PG_URL_PARAMS")
  fi
  (cd "$REPO" && go test -c -o "$BIN/guidedb.test" ./internal/guide/guidedb && go test -c -o "$BIN/propertydb.test" ./internal/property/propertydb)
  (cd "$REPO/internal/guide/guidedb" && env "${scale_env[@]}" BENCH_CATALOG_SCALES="$SCALE_LIST" GOMAXPROCS=1 \
    taskset -c "$SERVER_CPU" "$BIN/guidedb.test" -test.run '^$' -test.bench CatalogScale -test.benchtime 300x) | tee "$OUT_DIR/scale.txt"
  (cd "$REPO/internal/property/propertydb" && env "${scale_env[@]}" BENCH_PROPERTY_SCALE="$PROPERTY_SCALE" BENCH_PROPERTY_DAYS="$PROPERTY_DAYS" GOMAXPROCS=1 \
    taskset -c "$SERVER_CPU" "$BIN/propertydb.test" -test.run '^$' -test.bench PropertyDateSearch -test.benchtime 200x) | tee -a "$OUT_DIR/scale.txt"
  # The same catalogue through the router: every documented filter, sort
  # and locale, pages 1-50, uncached, with requests per CPU-second.
  (cd "$REPO" && go test -c -o "$BIN/guidehttp.test" ./internal/guide/guidehttp)
  (cd "$REPO/internal/guide/guidehttp" && env "${scale_env[@]}" BENCH_CATALOG_SCALES="$SCALE_LIST" GOMAXPROCS=1 \
    taskset -c "$SERVER_CPU" "$BIN/guidehttp.test" -test.run '^$' -test.bench CatalogHTTP -test.benchtime 2000x) | tee -a "$OUT_DIR/scale.txt"
  "$BIN/benchtool" scaleplot -in "$OUT_DIR/scale.txt" -out "$OUT_SCALE_PNG" \
    -machine "$(nproc) cores, the server's pinned; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  if [ -n "$PG_DB" ]; then
    psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qc "DROP DATABASE $PG_DB" >/dev/null && PG_DB=""
  fi
fi

# ---- report -------------------------------------------------------------------------------------
log "report"
GIT_REV=$(git -C "$SERVER_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$SERVER_SRC" diff --quiet HEAD -- cmd internal 2>/dev/null || GIT_REV="$GIT_REV + uncommitted changes"
PG_VERSION=$( [ "$WITH_POSTGRES" = 1 ] && psql "$PG_URL_BASE/postgres$PG_URL_PARAMS" -qtAc 'SHOW server_version' 2>/dev/null || echo "not measured")
MODE=full; [ "$QUICK" = 1 ] && MODE="quick (--quick)"
{
  echo "### Machine and run"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| mode | $MODE: $RUNS run(s) of $MAX_DURATION at the maximum and $RUNS of $FIXED_DURATION at ${FIXED_FRACTION} × maximum, after a $WARMUP warm-up; $WORKERS connections |"
  echo "| cores (nproc) | $(nproc) |"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |"
  echo "| memory | $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) |"
  echo "| kernel | $(uname -r) |"
  echo "| Go | $(go env GOVERSION) |"
  echo "| vegeta | $VEGETA_VERSION (go tool, pinned in bench/go.mod) |"
  echo "| PocketBase | $PB_VERSION (bench/peer/go.mod) |"
  echo "| PostgreSQL | $PG_VERSION (the backends of our database moved to core $SERVER_CPU: $([ "$PIN_POSTGRES" = 1 ] && echo yes || echo no); their CPU time counts with our server's) |"
  echo "| our commit | $GIT_REV |"
  echo "| load average at the end | $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine shows as \"core busy\" above the server's own CPU) |"
  echo "| niceness of the servers and vegeta | ${PRIO[*]:-none} |"
  echo "| peak RSS of our server after the setup (registration hashes passwords), before the reset | $(awk '/setup-rss-kb/ {printf "%s%.0f MB", sep, $2/1024; sep=", "}' "$WORK/notes") |"
  echo
  echo "Commands, as run (\`\$B\` is the server's address; targets are written by \`benchtool targets\`):"
  echo
  echo '```sh'
  echo "# ours (the same for PostgreSQL with GUIDE_DATABASE_URL=$PG_URL_BASE/<fresh database>$PG_URL_PARAMS)"
  echo "${PRIO[*]:+${PRIO[*]} }GOMAXPROCS=1 SAMPLE_DATA=on DEMO_PASSWORD=… LOG_LEVEL=$BENCH_LOG_LEVEL GUIDE_PUBLIC_RATE_LIMIT=1000000000 GUIDE_AUTH_RATE_LIMIT=1000000000 DATABASE_MAX_CONNS=$PG_POOL \\"
  echo "  GUIDE_DATABASE_URL=<fresh dir>/guide.db taskset -c $SERVER_CPU server"
  echo "GOMAXPROCS=1 taskset -c $SERVER_CPU ceiling -manifest bodies/manifest.json"
  echo "GOMAXPROCS=1 taskset -c $SERVER_CPU peer serve --http=127.0.0.1:$PEER_PORT --dir=<fresh dir>"
  echo "# the maximum: $RUNS runs; then $RUNS runs at -rate=<${FIXED_FRACTION} × median maximum>/s -duration=$FIXED_DURATION"
  echo "taskset -c $CLIENT_CPU vegeta attack -format=json -targets=T -duration=$MAX_DURATION -rate=0 -workers=$WORKERS -max-workers=$WORKERS \\"
  echo "  -timeout=10s -max-body=0 -http2=false -keepalive=true -output=R"
  echo '```'
} >"$WORK/machine.md"

"$BIN/benchtool" report -results "$RESULTS" -md "$OUT_MD" -png "$OUT_PNG" -png-link "$(realpath --relative-to="$(dirname "$(realpath "$OUT_MD")")" "$OUT_PNG")" \
  -summary "$OUT_SUMMARY" -machine "$WORK/machine.md" \
  -run "$(date -u '+%Y-%m-%d %H:%M UTC'), $MODE run, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), commit $GIT_REV"
cp "$RESULTS" "$WORK/machine.md" "$OUT_DIR/"
log "done in $(( $(date +%s) - T0 ))s: $OUT_MD, $OUT_PNG; raw results in $OUT_DIR"
