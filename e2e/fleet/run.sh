#!/usr/bin/env bash
# Fleet test: three replicas of cmd/server behind HAProxy, on a PostgreSQL
# cluster and a Redis server of its own, under a load of keyed writes and
# reads (fleet_test.go, the driver), while this script
#   1. upgrades every replica in turn (SIGTERM, wait for exit, start the
#      new build, ready): the fleet starts on the previous release, the
#      build of the commit before the newest migration came in, so the
#      new release migrates while old replicas serve on its schema, and
#      both versions serve together until the roll is done,
#   2. kills one with SIGKILL and starts it again,
#   3. restarts PostgreSQL (pg_ctl restart -m fast) and restarts no replica,
#   4. stops Redis for a while, then starts it again.
# The driver then asserts: no failed request during the roll or while Redis
# is down, every acknowledged write stored, no Idempotency-Key executed
# twice, and requests succeeding again soon after PostgreSQL is back; it
# prints a summary.
#
# Needs Go, PostgreSQL's server binaries (initdb, pg_ctl), redis-server and
# HAProxy (installed from Debian's packages when missing and running as
# root). CI's shared PostgreSQL and Redis are never touched: the test's own
# run on free ports, from a temporary folder removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"

log() { printf '%s fleet: %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "$*" >&2; exit 1; }

DEMO_PASSWORD=fleet-demo-password

if ! command -v haproxy >/dev/null; then
  [ "$(id -u)" -eq 0 ] || die "haproxy is missing (apt-get install haproxy)"
  log "installing HAProxy (Debian package)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy; } >/dev/null
fi
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL's initdb not found under /usr/lib/postgresql/*/bin"
command -v redis-server >/dev/null || die "redis-server is missing (apt-get install redis-server)"

work="$(mktemp -d /tmp/fleet.XXXXXX)"
chmod 755 "$work"
declare -a pids=() gports=() pports=() mports=()
haproxy_pid=""
redis_pid=""
pg_started=""

# As root, PostgreSQL runs as the postgres user, which initdb requires.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
  status=$?
  for pid in "${pids[@]}"; do
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  [ -n "$haproxy_pid" ] && kill "$haproxy_pid" 2>/dev/null || true
  [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null || true
  for pid in "${pids[@]}"; do
    [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
  done
  [ -n "$pg_started" ] && as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  if [ "$status" -ne 0 ]; then
    for i in 0 1 2; do
      [ -f "$work/replica$i.log" ] && { echo "--- replica $i log (last 20 lines but the realtime channel's)" >&2; grep -v '"realtime: ' "$work/replica$i.log" | tail -n 20 >&2; }
    done
    [ -f "$work/haproxy.log" ] && { echo "--- HAProxy log (last 30 lines)" >&2; tail -n 30 "$work/haproxy.log" >&2; }
    [ -f "$work/pg.log" ] && { echo "--- PostgreSQL log (last 20 lines)" >&2; tail -n 20 "$work/pg.log" >&2; }
  fi
  # FLEET_LOGS=folder keeps the logs of the replicas, HAProxy and PostgreSQL.
  [ -n "${FLEET_LOGS:-}" ] && mkdir -p "$FLEET_LOGS" && cp "$work"/*.log "$FLEET_LOGS"/ 2>/dev/null
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# Free loopback ports, all distinct: 3 per replica, 2 for HAProxy's
# frontends, one for its stats page, one for PostgreSQL and one for
# Redis; taken below
# the kernel's range for outgoing connections, and used by no socket.
ports=()
low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
while [ "${#ports[@]}" -lt 14 ]; do
  p=$((10000 + RANDOM % (low - 10000)))
  case " ${ports[*]} " in *" $p "*) continue ;; esac
  ss -Htan "sport = :$p" | grep -q . && continue
  ports+=("$p")
done
for i in 0 1 2; do gports[i]=${ports[i*3]}; pports[i]=${ports[i*3+1]}; mports[i]=${ports[i*3+2]}; done
GUIDE_LB=${ports[9]} PROPERTY_LB=${ports[10]} STATS=${ports[11]} PG_PORT=${ports[12]} REDIS_PORT=${ports[13]}

log "building the server and the driver"
go build -o "$work/server" ./cmd/server
go test -c -o "$work/fleet.test" ./e2e/fleet
# The previous release: main as it was before the newest migration landed.
newest=$(git log --first-parent -1 --diff-filter=A --format=%H -- \
  internal/guide/guidedb/migrations internal/property/propertydb/migrations 2>/dev/null || true)
if [ -n "$newest" ] && git cat-file -e "$newest^1" 2>/dev/null; then
  previous=$(git rev-parse --short "$newest^1")
  log "building the previous release ($previous, before $(git rev-parse --short "$newest") brought the newest migration)"
  mkdir "$work/previous"
  git archive "$previous" | tar -x -C "$work/previous"
  (cd "$work/previous" && go build -o "$work/server-previous" ./cmd/server)
else
  # A shallow clone has no history: the fleet then starts on this build.
  log "no history to find the previous release in: the upgrade phase rolls this build onto itself"
  cp "$work/server" "$work/server-previous"
fi

log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (a cluster of its own in $work/pg)"
mkdir -p "$work/pg" "$work/pgsock"
[ "$(id -u)" -eq 0 ] && chown postgres "$work/pg" "$work/pgsock"
as_pg "$PG_BIN/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
touch "$work/pg.log"; [ "$(id -u)" -eq 0 ] && chown postgres "$work/pg.log"
pg_opts="-p $PG_PORT -k $work/pgsock -c listen_addresses=127.0.0.1 -c max_connections=100"
as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -o "$pg_opts" -l "$work/pg.log" -w start >/dev/null
pg_started=1
for db in guide property; do
  "$PG_BIN/psql" -qAt -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE $db" postgres
done
GUIDE_DB="postgres://postgres@127.0.0.1:$PG_PORT/guide?sslmode=disable"
PROPERTY_DB="postgres://postgres@127.0.0.1:$PG_PORT/property?sslmode=disable"

start_redis() {
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --dir "$work" >>"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 40); do redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.25; done
  die "Redis did not start on 127.0.0.1:$REDIS_PORT"
}
log "Redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$REDIS_PORT"
start_redis

start_replica() {
  local i=$1 bin=${2:-server}
  env GUIDE_ADDR="127.0.0.1:${gports[i]}" PROPERTY_ADDR="127.0.0.1:${pports[i]}" METRICS_ADDR="127.0.0.1:${mports[i]}" \
    GUIDE_PUBLIC_URL="http://127.0.0.1:$GUIDE_LB" PROPERTY_PUBLIC_URL="http://127.0.0.1:$PROPERTY_LB" \
    GUIDE_DATABASE_URL="$GUIDE_DB" PROPERTY_DATABASE_URL="$PROPERTY_DB" REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0" \
    JWT_SECRET=fleet-jwt-secret-fleet-jwt-secret-0001 PORTAL_JWT_SECRET=fleet-portal-secret-fleet-portal-0001 \
    REALTIME_SECRET=fleet-realtime-secret-fleet-realtime-01 DEMO_PASSWORD="$DEMO_PASSWORD" SAMPLE_DATA=on \
    SHUTDOWN_DRAIN=3s SHUTDOWN_GRACE=10s DATABASE_MAX_CONNS=8 AVATAR_DIR="$work/avatars" LOG_LEVEL=warn \
    GUIDE_PUBLIC_RATE_LIMIT=1000000 GUIDE_AUTH_RATE_LIMIT=1000 PROPERTY_RATE_LIMIT=1000000 \
    "$work/$bin" >>"$work/replica$i.log" 2>&1 &
  pids[i]=$!
}

ready() { curl -fsS -o /dev/null "http://127.0.0.1:$1/readyz" 2>/dev/null; }
wait_ready() {
  local i=$1
  for _ in $(seq 1 240); do
    ready "${gports[i]}" && ready "${pports[i]}" && return 0
    kill -0 "${pids[i]}" 2>/dev/null || die "replica $i exited during start"
    sleep 0.25
  done
  die "replica $i not ready within 60 s"
}

# status of replica i in HAProxy's backend (UP, DOWN, …), from the stats CSV
lb_status() { curl -fsS "http://127.0.0.1:$STATS/stats;csv" 2>/dev/null | awk -F, -v b="$1" -v s="r$2" '$1==b && $2==s {print $18}'; }
wait_lb_up() {
  local i=$1
  for _ in $(seq 1 120); do
    [ "$(lb_status guide "$i")" = UP ] && [ "$(lb_status property "$i")" = UP ] && return 0
    sleep 0.25
  done
  die "HAProxy did not see replica $i up within 30 s"
}

log "starting three replicas of the previous release together on empty databases"
for i in 0 1 2; do start_replica "$i" server-previous; done
for i in 0 1 2; do wait_ready "$i"; done

cat >"$work/haproxy.cfg" <<EOF
global
    maxconn 2000
    log stderr format iso local0 info
defaults
    mode http
    log global
    option log-health-checks
    option dontlog-normal
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # Above /readyz's own bound (each check it makes gets 2 s): a slow
    # answer is not a failed one.
    timeout check 3s
    # A connection refused (a replica gone) is tried again on another
    # replica; a request already sent is not, so a replica that dies
    # with requests in flight shows as failures.
    retries 3
    option redispatch 1
    option httpchk GET /readyz
    default-server inter 500ms fall 2 rise 2
listen stats
    bind 127.0.0.1:$STATS
    stats enable
    stats uri /stats
frontend guide_in
    bind 127.0.0.1:$GUIDE_LB
    default_backend guide
frontend property_in
    bind 127.0.0.1:$PROPERTY_LB
    default_backend property
backend guide
    balance roundrobin
$(for i in 0 1 2; do echo "    server r$i 127.0.0.1:${gports[i]} check"; done)
backend property
    balance roundrobin
$(for i in 0 1 2; do echo "    server r$i 127.0.0.1:${pports[i]} check"; done)
EOF
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
haproxy_pid=$!
for i in 0 1 2; do wait_lb_up "$i"; done
log "HAProxy $(haproxy -v | awk 'NR==1{print $3}') on 127.0.0.1:$GUIDE_LB (guide) and 127.0.0.1:$PROPERTY_LB (property)"

phase() { log "phase: $1"; echo "$1" >>"$work/phase"; }
phase warmup
FLEET_GUIDE_URL="http://127.0.0.1:$GUIDE_LB" FLEET_PROPERTY_URL="http://127.0.0.1:$PROPERTY_LB" \
FLEET_PHASE_FILE="$work/phase" FLEET_GUIDE_DB="$GUIDE_DB" FLEET_PROPERTY_DB="$PROPERTY_DB" \
FLEET_DEMO_PASSWORD="$DEMO_PASSWORD" \
  "$work/fleet.test" -test.run '^TestFleet$' -test.v -test.count=1 -test.timeout=6m &
driver_pid=$!
sleep 4

phase roll
for i in 0 1 2; do
  t0=$(date +%s.%N)
  kill -TERM "${pids[i]}"
  wait "${pids[i]}" || die "replica $i exited with status $? after SIGTERM"
  start_replica "$i"
  wait_ready "$i"
  wait_lb_up "$i"
  log "replica $i upgraded in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
done
sleep 1

phase kill
sleep 0.5
kill -KILL "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true
sleep 2
start_replica 1
wait_ready 1
wait_lb_up 1
# Give the killed replica's Idempotency-Key leases time to lapse and the
# driver's retries time to take them over.
sleep 8

phase postgres
before="${pids[*]}"
as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -o "$pg_opts" -l "$work/pg.log" -m fast -w restart >/dev/null
phase recover
for i in 0 1 2; do wait_lb_up "$i"; done
# As after the kill: a keyed write cut off by the restart holds its
# Idempotency-Key until its lease lapses (IDEMPOTENCY_LOCK_TTL, 6 s); its
# retries belong to this phase, not to the next.
sleep 8
[ "${pids[*]}" = "$before" ] || die "a replica was restarted during the PostgreSQL phase"
for i in 0 1 2; do kill -0 "${pids[i]}" 2>/dev/null || die "replica $i died during the PostgreSQL restart"; done

phase redis
kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true
redis_pid=""
sleep 1
body=$(curl -sS "http://127.0.0.1:${gports[0]}/readyz")
case "$body" in *degraded*) log "replica 0 /readyz without Redis: $body" ;; *) die "/readyz without Redis: $body; want degraded" ;; esac
sleep 4
start_redis
sleep 2

phase done
driver_status=0
wait "$driver_pid" || driver_status=$?
echo "--- HAProxy's view: replicas leaving and joining the pools"
grep -E '^[0-9-]+T.* Server [a-z]+/r[0-9] is (UP|DOWN)' "$work/haproxy.log" | sed -E 's/^[0-9-]+T([0-9:.]{12})[0-9]*\+00:00 Server ([a-z]+\/r[0-9]) is (UP|DOWN)\. ([0-9]+) active.*/\1 \2 \3 (\4 active)/' || true
echo "--- HAProxy's failed health checks, by reason"
grep -E '^[0-9-]+T.*Health check for server .* failed' "$work/haproxy.log" | grep -oE 'reason: [^,]*' | sort | uniq -c || true
[ "$driver_status" -eq 0 ] || die "the fleet test failed (see the driver's output above)"
log "passed"
