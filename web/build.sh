#!/usr/bin/env bash
# Builds the web pages that cmd/server embeds (package internal/platform/webui):
# installs the pinned API reference renderer (redoc, see package.json and
# package-lock.json) with `npm ci`, then copies it and the page sources
# (portal/, confirm/, consent/, apps/, admin/, docs/, common/) into internal/platform/webui/dist/. That folder is
# committed, so `go build` and `go run ./cmd/server` need no Node.js; run
# this script after changing anything under web/ and commit the result
# (TestDistMatchesSources in internal/platform/webui fails until you do).
set -euo pipefail
cd "$(dirname "$0")"

out=../internal/platform/webui/dist

npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

rm -rf "$out"
mkdir -p "$out/portal" "$out/confirm" "$out/consent" "$out/apps" "$out/admin" "$out/docs" "$out/common" "$out/vendor"
for dir in portal confirm consent apps admin docs common; do
  cp -- "$dir"/* "$out/$dir/"
done
# Redoc's attribution ("API docs by Redocly") loads its logo from
# cdn.redoc.ly: a request off this machine that the pages' CSP blocks on
# every load. The logo becomes an inline picture of the same word; the
# attribution and its link stay.
logo="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='72' height='20'%3E%3Ctext x='0' y='15' font-family='sans-serif' font-size='15' font-weight='700' fill='%23e0473a'%3ERedocly%3C/text%3E%3C/svg%3E"
sed -e "s|https://cdn.redoc.ly/redoc/logo-mini-full.svg|$logo|g" -e "s|https://cdn.redoc.ly/redoc/logo-mini.svg|$logo|g" \
  node_modules/redoc/bundles/redoc.standalone.js >"$out/vendor/redoc.standalone.js"
if grep -q 'cdn.redoc.ly' "$out/vendor/redoc.standalone.js"; then
  echo "build: the reference renderer still loads something from cdn.redoc.ly" >&2
  exit 1
fi
cp node_modules/redoc/LICENSE "$out/vendor/redoc.LICENSE.txt"

version=$(node -p "require('./node_modules/redoc/package.json').version")
echo "built $out with redoc $version"
