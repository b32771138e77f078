#!/usr/bin/env bash
# Browser tests of the developer portal and the reference pages.
#
# Builds cmd/server, starts it on two free loopback ports with a fresh data
# folder (sample data on), waits until both APIs are ready, runs the tests
# (node's test runner, playwright-core driving Debian's headless Chromium),
# and stops the server. Screenshots of every step go to e2e/screenshots/
# (emptied first). Needs Go, Node.js 20+, and Debian's chromium package
# (CHROMIUM overrides /usr/bin/chromium); installs playwright-core with
# `npm ci` when missing.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "e2e: no Chromium at $CHROMIUM: apt-get install chromium chromium-driver (or set CHROMIUM)" >&2
  exit 1
fi
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error

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
app_port="$(free_port)" # a browser app of another origin, served by the tests
while [ "$app_port" = "$guide_port" ] || [ "$app_port" = "$property_port" ]; do app_port="$(free_port)"; done

echo "e2e: building the server"
(cd .. && go build -o "$work/server" ./cmd/server)

echo "e2e: starting it on 127.0.0.1:$guide_port (guide) and 127.0.0.1:$property_port (property)"
GUIDE_ADDR="127.0.0.1:$guide_port" PROPERTY_ADDR="127.0.0.1:$property_port" \
GUIDE_PUBLIC_URL="http://127.0.0.1:$guide_port" PROPERTY_PUBLIC_URL="http://127.0.0.1:$property_port" \
GUIDE_DATABASE_URL="$work/guide.db" PROPERTY_DATABASE_URL="$work/property.db" \
AVATAR_DIR="$work/avatars" SAMPLE_DATA=on ADMIN_EMAILS=console-admin@example.com LOG_LEVEL=warn PROPERTY_RATE_LIMIT=20 GUIDE_AUTH_RATE_LIMIT=100 PROPERTY_AUTH_RATE_LIMIT=100 WEBHOOK_ALLOW_HOSTS=127.0.0.1 \
PROPERTY_CORS_ALLOWED_ORIGINS="http://127.0.0.1:$app_port" \
  "$work/server" >"$work/server.log" 2>&1 &
pid=$!

ready() { curl -fsS -o /dev/null "http://127.0.0.1:$1/api/v1/openapi.json" 2>/dev/null; }
for _ in $(seq 1 120); do
  if ready "$guide_port" && ready "$property_port"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "e2e: the server stopped" >&2; exit 1; fi
  sleep 0.5
done
ready "$guide_port" && ready "$property_port" || { echo "e2e: the server did not become ready in 60 s" >&2; exit 1; }

rm -rf screenshots
mkdir -p screenshots
GUIDE_URL="http://127.0.0.1:$guide_port" ADMIN_EMAIL=console-admin@example.com PROPERTY_URL="http://127.0.0.1:$property_port" PROPERTY_RATE_LIMIT=20 APP_PORT="$app_port" \
CHROMIUM="$CHROMIUM" SCREENSHOT_DIR="$PWD/screenshots" \
  node --test --test-concurrency=1 --test-reporter=spec ./*.test.mjs
echo "e2e: screenshots in e2e/screenshots/"
