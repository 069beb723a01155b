#!/usr/bin/env bash
# Soak test (not part of make test): the real daemon under mixed load for
# DURATION seconds (default 1800), driven by tests/soak/soak.py with the
# independent Python grpcio client -- WinningPoSt, WindowPoSt, PoRep C2 and
# SnapDeals 2 KiB proofs (each returned proof verified by `cuzk-bench
# verify`), garbage requests, cancellations, disconnecting clients,
# preload/evict churn under a tight memory budget, RSS and fd sampling, and
# SIGTERM with waiters at the end.  Prints PASS/FAIL and the figures
# (docs/reliability.md records the runs).
#
#   scripts/soak.sh [DURATION_S] [BIN_DIR]      (needs make demo's param cache)
#   CUZK_SOAK_BUDGET=2GiB  memory.total_budget for the run
#   CUZK_SOAK_SAMPLES=F    also write the heap/fd samples (every 5 s) to CSV file F
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=${1:-1800}
BIN=$(cd "${2:-$ROOT/build/bin}" && pwd)
CACHE=${CUZK_DEMO_CACHE:-$HOME/.cache/cuzk/demo-params-2k}
for m in winning-post window-post porep-2k snap-2k; do
  if [ ! -f "$CACHE/.done-$m" ]; then
    echo "soak: the 2 KiB TEST params ($m) are missing in $CACHE: run 'make demo' once first (it makes them)" >&2
    exit 2
  fi
done
if ! /usr/bin/python3 -c 'import grpc, grpc_tools.protoc' 2>/dev/null; then
  echo "soak: needs python3-grpcio python3-grpc-tools: apt-get install -y --no-install-recommends python3-grpcio python3-grpc-tools" >&2
  exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-soak.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 -u -W ignore::ResourceWarning "$ROOT/tests/soak/soak.py" --bin "$BIN" --params "$CACHE" \
  --work "$WORK" --duration "$DURATION" --budget "${CUZK_SOAK_BUDGET:-2GiB}" --samples "${CUZK_SOAK_SAMPLES:-}"
