#!/usr/bin/env bash
# Random 2 KiB TEST params for the PoRep and SnapDeals circuits, made once
# into a cache that outlives the run (scripts/cli-tests.sh, the daemon tests
# and scripts/demo.sh read them), each marked done by DIR/.done-NAME.
#
#   scripts/test-params.sh [BIN_DIR] [porep] [snap]      (default: both)
#
# CUZK_POREP_TEST_PARAMS / CUZK_SNAP_TEST_PARAMS move the caches (default
# ~/.cache/cuzk/test-params-{porep,snap}-2k).  A lock on each cache makes
# concurrent callers (make test's two lanes) wait for one maker instead of
# racing it.  The marker says "records" since setup writes each file's
# validation record (srs.validate = digest): an older cache is made again
# once, so that no run pays for validating our own TEST params point by point.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/bin}
shift || true
[ $# -gt 0 ] || set -- porep snap
for circuit in "$@"; do
  case $circuit in
    porep) dir=${CUZK_POREP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-porep-2k} ;;
    snap) dir=${CUZK_SNAP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-snap-2k} ;;
    *) echo "test-params: unknown circuit '$circuit' (porep or snap)" >&2; exit 2 ;;
  esac
  name=$circuit-2k
  mkdir -p "$dir"
  exec 9>"$dir/.lock"
  flock 9
  if [ -f "$dir/.done-$name" ] && ! grep -qs records "$dir/.done-$name"; then
    echo "$name: cached TEST parameters in $dir predate validation records: making them again"
    rm -f "$dir/.done-$name" "$dir"/v28-* "$dir"/*.pce
  fi
  if [ ! -f "$dir/.done-$name" ]; then
    echo "$name: creating 2 KiB TEST parameters in $dir (once; about a minute on 2 cores)"
    t0=$EPOCHREALTIME
    "$BIN/cuzk-bench" setup --circuit "$circuit" --sector-size 2KiB --out "$dir"
    echo records >"$dir/.done-$name"
    awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$name" 'BEGIN { printf "%s: made in %.1f s\n", n, b - a }'
  fi
  exec 9>&-
done
