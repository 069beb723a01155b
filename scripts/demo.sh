#!/usr/bin/env bash
# make demo: the main job on a fresh machine, end to end through the daemon.
#   1. test parameters for the 2 KiB WinningPoSt / WindowPoSt / PoRep /
#      SnapDeals circuits (random TEST params, created once, cached in
#      $CUZK_DEMO_CACHE, default ~/.cache/cuzk/demo-params-2k; the PoRep and
#      SnapDeals ones are linked from make test's caches when it has them,
#      else made here: ~5 and ~2 minutes)
#   2. a synthetic 2 KiB sector and its PoSt vanilla proofs, a natively
#      sealed 2 KiB sector with its C1 output, and that sector updated
#      (SnapDeals) with its partition proofs (cuzk-bench gen-vanilla)
#   3. cuzk-daemon on a private unix socket with that param_cache
#   4. WinningPoSt, WindowPoSt, PoRep C2 and SnapDeals proved through gRPC
#      (cuzk-bench single), per-phase timings printed, each proof verified
#      (cuzk-bench verify)
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

step "1. test parameters for 2 KiB WinningPoSt + WindowPoSt + PoRep + SnapDeals (cached in $CACHE)"
mkdir -p "$CACHE"
# cached_params NAME CIRCUIT [TEST_CACHE] [HOW_LONG]: NAME's TEST params in
# $CACHE, marked by .done-NAME.  The PoRep and SnapDeals params are the same
# seed's as make test's (scripts/cli-tests.sh): linked from its cache
# TEST_CACHE when present rather than made again.
cached_params() {
  # the marker says "records" since params come with their validation record
  # (<file>.cuzk-valid, srs.validate = digest); an older cache is made again
  # once rather than validated point by point at every daemon start
  if grep -qs records "$CACHE/.done-$1"; then
    echo "$1: cached"
  elif [ -n "${3:-}" ] && grep -qs records "$3/.done-$1"; then
    echo "$1: linking make test's TEST parameters from $3"
    for f in "$3"/v28-*; do
      ln -f "$f" "$CACHE/" 2>/dev/null || cp -f "$f" "$CACHE/"
    done
    echo records >"$CACHE/.done-$1"
  else
    echo "$1: creating random TEST parameters (once; ${4:-a minute or two on a small machine})"
    "$BIN/cuzk-bench" setup --circuit "$2" --sector-size 2KiB --out "$CACHE"
    echo records >"$CACHE/.done-$1"
  fi
}
cached_params winning-post winning-post
cached_params window-post window-post
cached_params porep-2k porep "${CUZK_POREP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-porep-2k}" \
  "~5 minutes on 2 cores: 2.7 M constraints"
cached_params snap-2k snap "${CUZK_SNAP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-snap-2k}" \
  "~2 minutes on 2 cores: 1.7 M constraints"

step "2. synthetic 2 KiB sector with its PoSt vanilla proofs; a sealed 2 KiB sector with its C1 output, then updated"
"$BIN/cuzk-bench" gen-vanilla post --sector-size 2KiB --sector 1 --randomness "$RND" --out "$WORK/sector"
COMM_R=$(sed -n 's/.*"comm_r": "\([0-9a-f]*\)".*/\1/p' "$WORK/sector/summary.json")
WIN_RP=$(sed -n 's/.*"winning_registered_proof": \([0-9]*\).*/\1/p' "$WORK/sector/summary.json")
WDP_RP=$(sed -n 's/.*"window_registered_proof": \([0-9]*\).*/\1/p' "$WORK/sector/summary.json")
"$BIN/cuzk-bench" gen-vanilla porep --sector-size 2KiB --sector 1 --miner-id "$MINER" --out "$WORK/seal"
"$BIN/cuzk-bench" gen-vanilla snap --sector-size 2KiB --sealed "$WORK/seal" --out "$WORK/snap"
# sj KEY FILE: a value of a gen-vanilla summary.json (hex string or number)
sj() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([0-9a-f]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -1; }

step "3. cuzk-daemon on $SOCK"
# default srs.validate (digest): our TEST params carry the validation record
# `cuzk-bench setup` wrote, so their points are not checked at every start.
# srs.allow_test_params: the TEST params carry the official file names.
"$BIN/cuzk-daemon" --listen "$ADDR" --status-listen 127.0.0.1:0 --param-cache "$CACHE" \
  --set srs.allow_test_params=true 2>"$WORK/daemon.log" &
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
verify_with() { # circuit vk-glob verify-args...: the circuit's one cached vk
  local vk
  vk=$(ls "$CACHE"/$2 | head -1)
  printf 'verify %s with %s: ' "$1" "$(basename "$vk")"
  "$BIN/cuzk-bench" verify --circuit "$1" --sector-size 2KiB --vk "$vk" "${@:3}"
}

step "4a. WinningPoSt through gRPC (first use loads its params: srs_load)"
prove winning-post "$WIN_RP" "$WORK/sector/winning-post.vproof" "$WORK/winning.proof"
verify winning-post "$WORK/winning.proof"
step "4b. WindowPoSt through gRPC"
prove window-post "$WDP_RP" "$WORK/sector/window-post.vproof" "$WORK/window.proof"
verify window-post "$WORK/window.proof"
step "4c. WinningPoSt again (params resident: no srs_load)"
prove winning-post "$WIN_RP" "$WORK/sector/winning-post.vproof" "$WORK/winning2.proof"
step "4d. PoRep C2 through gRPC (Curio's C1 envelope; 1 GiB of params load on first use)"
S="$WORK/seal/summary.json"
"$BIN/cuzk-bench" single --addr "$ADDR" --kind porep --c1 "$WORK/seal/c1-envelope.json" --miner-id "$MINER" \
  --sector "$(sj sector_id "$S")" --out "$WORK/porep.proof"
verify_with porep "v28-stacked-proof-of-replication-*.vk" --proof "$WORK/porep.proof" --comm-r "$(sj comm_r "$S")" \
  --comm-d "$(sj comm_d "$S")" --prover-id "$(sj prover_id "$S")" --sector-id "$(sj sector_id "$S")" \
  --ticket "$(sj ticket "$S")" --seed "$(sj seed "$S")"
step "4e. SnapDeals update of that sector through gRPC (Curio's JSON array of partition proofs)"
U="$WORK/snap/summary.json"
SC=(--comm-r-old "$(sj comm_r_old "$U")" --comm-r-new "$(sj comm_r_new "$U")" --comm-d-new "$(sj comm_d_new "$U")")
"$BIN/cuzk-bench" single --addr "$ADDR" --kind snap --sector-size 2KiB --registered-proof "$(sj registered_proof "$U")" \
  --vanilla "$WORK/snap/vanilla-proofs.json" "${SC[@]}" --out "$WORK/snap.proof"
verify_with snap "v28-empty-sector-update-*.vk" --proof "$WORK/snap.proof" "${SC[@]}"

step "5. daemon status and metrics"
"$BIN/cuzk-bench" status --addr "$ADDR"
"$BIN/cuzk-bench" metrics --addr "$ADDR" | grep -E '^cuzk_jobs_total\{kind="(window_post|winning_post|porep|snap)"' || true
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
echo "daemon stopped (exit $rc)"
echo
echo "demo: OK -- 2 KiB WinningPoSt + WindowPoSt + PoRep C2 + SnapDeals proved by cuzk-daemon over gRPC and verified"
