#!/usr/bin/env bash
# Lints both OpenAPI documents (api/guide.yaml, api/property.yaml) with
# Redocly's recommended rules (.redocly.yaml), using the @redocly/cli pinned
# in package.json and package-lock.json. Fails on any error; warnings are
# printed. Needs Node.js 20+.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npx --no-install redocly lint --config .redocly.yaml ../api/guide.yaml ../api/property.yaml
