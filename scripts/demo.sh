#!/usr/bin/env bash
# make demo: the main job on a fresh machine, end to end through the daemon.
#   1. test parameters for the 2 KiB WinningPoSt / WindowPoSt circuits
#      (random TEST params, created once, cached in $CUZK_DEMO_CACHE,
#      default ~/.cache/cuzk/demo-params-2k)
#   2. a synthetic 2 KiB sector and its vanilla proofs (cuzk-bench gen-vanilla)
#   3. cuzk-daemon on a private unix socket with that param_cache
#   4. WinningPoSt and WindowPoSt proved through gRPC (cuzk-bench single),
#      per-phase timings printed, each proof verified (cuzk-bench verify)
#   5. GetStatus, a few metrics, then SIGTERM and a clean exit
#
#   scripts/demo.sh [BIN_DIR]        (make demo passes build/bin)
set -euo pipefail
BIN=${1:-build/bin}
BIN=$(cd "$BIN" && pwd)
CACHE=${CUZK_DEMO_CACHE:-$HOME/.cache/cuzk/demo-params-2k}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-demo.XXXXXX")
SOCK="$WORK/cuzk.sock"
ADDR="unix://$SOCK"
RND=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a1a  # [31] & 0x3f already
MINER=1000
DPID=
cleanup() {
  if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then kill -TERM "$DPID"; wait "$DPID" || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

if [ ! -x "$BIN/cuzk-daemon" ]; then
  echo "demo: $BIN/cuzk-daemon was not built: the gRPC C core is missing." >&2
  echo "  apt-get install -y libgrpc-dev libprotobuf-c-dev protobuf-c-compiler && make" >&2
  exit 1
fi

step "1. test parameters for 2 KiB WinningPoSt + WindowPoSt (cached in $CACHE)"
mkdir -p "$CACHE"
for c in winning-post window-post; do
  if [ -f "$CACHE/.done-$c" ]; then
    echo "$c: cached"
  else
    echo "$c: creating random TEST parameters (once; a minute or two on a small machine)"
    "$BIN/cuzk-bench" setup --circuit "$c" --sector-size 2KiB --out "$CACHE"
    touch "$CACHE/.done-$c"
  fi
done

step "2. synthetic 2 KiB sector and its vanilla proofs"
"$BIN/cuzk-bench" gen-vanilla post --sector-size 2KiB --sector 1 --randomness "$RND" --out "$WORK/sector"
COMM_R=$(sed -n 's/.*"comm_r": "\([0-9a-f]*\)".*/\1/p' "$WORK/sector/summary.json")
WIN_RP=$(sed -n 's/.*"winning_registered_proof": \([0-9]*\).*/\1/p' "$WORK/sector/summary.json")
WDP_RP=$(sed -n 's/.*"window_registered_proof": \([0-9]*\).*/\1/p' "$WORK/sector/summary.json")

step "3. cuzk-daemon on $SOCK"
"$BIN/cuzk-daemon" --listen "$ADDR" --status-listen 127.0.0.1:0 --param-cache "$CACHE" 2>"$WORK/daemon.log" &
DPID=$!
for _ in $(seq 200); do
  grep -q "cuzk-daemon ready" "$WORK/daemon.log" 2>/dev/null && break
  kill -0 "$DPID" 2>/dev/null || { cat "$WORK/daemon.log"; exit 1; }
  sleep 0.05
done
grep -q "cuzk-daemon ready" "$WORK/daemon.log" || { cat "$WORK/daemon.log"; echo "daemon did not start" >&2; exit 1; }
HTTP=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$WORK/daemon.log" | head -1)
echo "daemon pid $DPID, gRPC $ADDR, HTTP http://127.0.0.1:$HTTP/{metrics,status,config}"

prove() { # kind registered_proof vproof out
  "$BIN/cuzk-bench" single --addr "$ADDR" --kind "$1" --sector-size 2KiB --registered-proof "$2" \
    --vanilla "$3" --randomness "$RND" --miner-id "$MINER" --out "$4"
}
verify() { # circuit proof
  local vk
  vk=$(ls "$CACHE"/v28-*.vk | while read -r f; do
    if "$BIN/cuzk-bench" verify --circuit "$1" --sector-size 2KiB --vk "$f" --proof "$2" --randomness "$RND" \
      --sector "1:$COMM_R" --miner-id "$MINER" >/dev/null 2>&1; then echo "$f"; fi; done | head -1)
  if [ -z "$vk" ]; then echo "verify $1: INVALID against every cached vk" >&2; return 1; fi
  printf 'verify %s with %s: ' "$1" "$(basename "$vk")"
  "$BIN/cuzk-bench" verify --circuit "$1" --sector-size 2KiB --vk "$vk" --proof "$2" --randomness "$RND" \
    --sector "1:$COMM_R" --miner-id "$MINER"
}

step "4a. WinningPoSt through gRPC (first use loads + validates its params: srs_load)"
prove winning-post "$WIN_RP" "$WORK/sector/winning-post.vproof" "$WORK/winning.proof"
verify winning-post "$WORK/winning.proof"
step "4b. WindowPoSt through gRPC"
prove window-post "$WDP_RP" "$WORK/sector/window-post.vproof" "$WORK/window.proof"
verify window-post "$WORK/window.proof"
step "4c. WinningPoSt again (params resident: no srs_load)"
prove winning-post "$WIN_RP" "$WORK/sector/winning-post.vproof" "$WORK/winning2.proof"

step "5. daemon status and metrics"
"$BIN/cuzk-bench" status --addr "$ADDR"
"$BIN/cuzk-bench" metrics --addr "$ADDR" | grep -E '^cuzk_jobs_total\{kind="(window|winning)_post"' || true
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
echo "daemon stopped (exit $rc)"
echo
echo "demo: OK -- 2 KiB WinningPoSt + WindowPoSt proved by cuzk-daemon over gRPC and verified"
