#!/usr/bin/env bash
# End-to-end test of the realtime chat channel with the official
# JavaScript client (the `centrifuge` npm package) under Node.
#
# Builds cmd/server, starts it on two free loopback ports with a temporary
# SQLite database (sample data on, DEMO_PASSWORD set so the demo traveller
# and expert can log in), waits until it is ready, runs realtime.test.mjs
# and stops the server. Needs Go and Node.js 20+; installs the pinned
# packages with `npm ci` when missing.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

[ -d node_modules/centrifuge ] || npm ci --no-audit --no-fund --loglevel=error

work="$(mktemp -d)"
pid=""
stop() {
  status=$?
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -f "$work/server.log" ]; then
    echo "--- server log (last 40 lines)" >&2
    tail -n 40 "$work/server.log" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap stop EXIT

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
guide_port="$(free_port)"
property_port="$(free_port)"
while [ "$property_port" = "$guide_port" ]; do property_port="$(free_port)"; done

echo "e2e/realtime: building the server"
(cd ../.. && go build -o "$work/server" ./cmd/server)

demo_password="e2e-realtime-$RANDOM$RANDOM"
echo "e2e/realtime: starting it on 127.0.0.1:$guide_port (guide)"
GUIDE_ADDR="127.0.0.1:$guide_port" PROPERTY_ADDR="127.0.0.1:$property_port" \
GUIDE_PUBLIC_URL="http://127.0.0.1:$guide_port" PROPERTY_PUBLIC_URL="http://127.0.0.1:$property_port" \
GUIDE_DATABASE_URL="$work/guide.db" PROPERTY_DATABASE_URL="$work/property.db" \
AVATAR_DIR="$work/avatars" SAMPLE_DATA=on LOG_LEVEL=warn DEMO_PASSWORD="$demo_password" GUIDE_AUTH_RATE_LIMIT=100 \
  "$work/server" >"$work/server.log" 2>&1 &
pid=$!

ready() { curl -fsS -o /dev/null "http://127.0.0.1:$1/readyz" 2>/dev/null; }
for _ in $(seq 1 120); do
  if ready "$guide_port"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "e2e/realtime: the server stopped" >&2; exit 1; fi
  sleep 0.5
done
ready "$guide_port" || { echo "e2e/realtime: the server did not become ready in 60 s" >&2; exit 1; }

GUIDE_URL="http://127.0.0.1:$guide_port" DEMO_PASSWORD="$demo_password" \
  node --test --test-timeout=60000 --test-force-exit --test-reporter=spec ./realtime.test.mjs
