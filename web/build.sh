#!/usr/bin/env bash
# Builds the web pages that cmd/server embeds (package internal/webui):
# installs the pinned API reference renderer (redoc, see package.json and
# package-lock.json) with `npm ci`, then copies it and the page sources
# (portal/, docs/, common/) into internal/webui/dist/. That folder is
# committed, so `go build` and `go run ./cmd/server` need no Node.js; run
# this script after changing anything under web/ and commit the result
# (TestDistMatchesSources in internal/webui fails until you do).
set -euo pipefail
cd "$(dirname "$0")"

out=../internal/webui/dist

npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

rm -rf "$out"
mkdir -p "$out/portal" "$out/docs" "$out/common" "$out/vendor"
for dir in portal docs common; do
  cp -- "$dir"/* "$out/$dir/"
done
cp node_modules/redoc/bundles/redoc.standalone.js "$out/vendor/redoc.standalone.js"
cp node_modules/redoc/LICENSE "$out/vendor/redoc.LICENSE.txt"

version=$(node -p "require('./node_modules/redoc/package.json').version")
echo "built $out with redoc $version"
