#!/usr/bin/env bash
# The live status page in a real browser (tests/daemon/test_status_page.py):
# the release daemon under a mixed 2 KiB load, the page at / opened in
# headless Chromium through Debian's python3-selenium + chromium-driver, and
# a screenshot saved as BUILD/status-page.png.  Run once per `make test`
# (its release stage), not under the sanitizers: the page and the JSON it
# reads are the same there, and a browser under ASan/TSan timing adds minutes.
#
#   scripts/page-tests.sh [BIN_DIR] [unittest args]
#
# Skipped (reported SKIPPED, tests/skip.sh) when the build has no daemon, or
# when chromium, chromedriver or python3-selenium is missing and CI is unset;
# under CI=true a missing one fails (.ci/run installs them).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/skip.sh"
BIN=${1:-$ROOT/build/bin}
shift || true
PY=/usr/bin/python3
if [ ! -x "$BIN/cuzk-daemon" ]; then
  skip_ref page-tests "$BIN/cuzk-daemon not built (apt-get install -y libgrpc-dev libprotobuf-c-dev protobuf-c-compiler, then rebuild)" || exit 1
  exit 0
fi
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
"$PY" -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
"$PY" -c 'import grpc, grpc_tools.protoc' 2>/dev/null || missing+=(python3-grpcio python3-grpc-tools)
if [ ${#missing[@]} -gt 0 ]; then
  skip_ref page-tests "status page not checked in a browser: missing ${missing[*]} (apt-get install -y --no-install-recommends ${missing[*]})" || exit 1
  exit 0
fi
export CUZK_BIN="$BIN"
export CUZK_SCREENSHOT=${CUZK_SCREENSHOT:-$(cd "$BIN/.." && pwd)/status-page.png}
start=$(date +%s)
"$PY" -W ignore::ResourceWarning "$ROOT/tests/daemon/test_status_page.py" "$@"
echo "page-tests: ok in $(($(date +%s) - start)) s; screenshot $CUZK_SCREENSHOT"
