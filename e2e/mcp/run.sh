#!/usr/bin/env bash
# End-to-end test of both APIs' MCP endpoints with the official TypeScript
# SDK (@modelcontextprotocol/sdk) as the client.
#
# Builds cmd/server, starts it on two free loopback ports with a fresh data
# folder (sample data on), waits until both APIs are ready, runs the tests
# (node's test runner) and stops the server. Needs Go, Node.js 20+, openssl
# and Debian's chromium package (CHROMIUM overrides /usr/bin/chromium) for
# the OAuth test's consent page; installs the pinned SDK and playwright-core
# with `npm ci` when missing. The OAuth test serves Client ID Metadata
# Documents over https from 127.0.0.1 with a self-signed certificate made
# here, which the server trusts (SSL_CERT_FILE) and may fetch
# (WEBHOOK_ALLOW_HOSTS).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "e2e/mcp: no Chromium at $CHROMIUM: apt-get install chromium (or set CHROMIUM)" >&2
  exit 1
fi

[ -d node_modules/@modelcontextprotocol/sdk ] && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error

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

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/cimd.key" -out "$work/cimd.crt" 2>/dev/null

echo "e2e/mcp: building the server"
(cd ../.. && go build -o "$work/server" ./cmd/server)

echo "e2e/mcp: starting it on 127.0.0.1:$guide_port (guide) and 127.0.0.1:$property_port (property)"
GUIDE_ADDR="127.0.0.1:$guide_port" PROPERTY_ADDR="127.0.0.1:$property_port" \
GUIDE_PUBLIC_URL="http://127.0.0.1:$guide_port" PROPERTY_PUBLIC_URL="http://127.0.0.1:$property_port" \
GUIDE_DATABASE_URL="$work/guide.db" PROPERTY_DATABASE_URL="$work/property.db" \
WEBHOOK_ALLOW_HOSTS=127.0.0.1 SSL_CERT_FILE="$work/cimd.crt" \
AVATAR_DIR="$work/avatars" SAMPLE_DATA=on DEMO_PASSWORD="e2e-demo-password" LOG_LEVEL=info \
  "$work/server" >"$work/server.log" 2>&1 &
pid=$!

ready() { curl -fsS -o /dev/null "http://127.0.0.1:$1/api/v1/openapi.json" 2>/dev/null; }
for _ in $(seq 1 120); do
  if ready "$guide_port" && ready "$property_port"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "e2e/mcp: the server stopped" >&2; exit 1; fi
  sleep 0.5
done
ready "$guide_port" && ready "$property_port" || { echo "e2e/mcp: the server did not become ready in 60 s" >&2; exit 1; }

GUIDE_URL="http://127.0.0.1:$guide_port" PROPERTY_URL="http://127.0.0.1:$property_port" \
CHROMIUM="$CHROMIUM" DEMO_PASSWORD="e2e-demo-password" CIMD_CERT="$work/cimd.crt" CIMD_KEY="$work/cimd.key" \
  node --test --test-concurrency=1 --test-reporter=spec ./*.test.mjs

# Every tool call was audited: one log line each with the key, tool and outcome.
calls=$(grep -c '"mcp tool call"\|msg="mcp tool call"' "$work/server.log" || true)
echo "e2e/mcp: $calls tool calls in the server's audit log"
[ "$calls" -gt 0 ] || { echo "e2e/mcp: no tool call was logged" >&2; exit 1; }
