#!/usr/bin/env bash
# Production size on this machine (issue 20): 32 GiB PoRep and WindowPoSt partitions from nothing.
# Not part of make test.
#
# NEEDS  disk: ~52 GB for PoRep (47.4 GB params + 4.2 GB PCE + 90 MB sector), then the WindowPoSt
#        params (~52 GB + 4 GB PCE) after the PoRep params are deleted, then the SnapDeals params
#        (~35 GB + 2 GB PCE) after the WindowPoSt params are deleted (--keep keeps them all: ~140 GB);
#        memory: ~14 GB anonymous per partition in flight (the params are mapped, page cache);
#        time on the 2-vCPU VM: setup ~20-40 min per circuit (AVX-512 IFMA or not), sector and
#        vanilla generation seconds, one partition's proof ~10-20 min, the daemon's whole
#        10-partition sector ~10x one partition (--daemon).
#
#   scripts/bench-32g.sh [--dir D] [--bin B] [--threads T] [--partition K] [--daemon] [--keep]
#                        [--skip-porep] [--skip-window] [--skip-snap]
#
# Steps (each skipped when its output is already there, so a run can be resumed):
#   1. cuzk-bench setup --circuit porep --sector-size 32GiB  (streaming test params, PCE kept)
#   2. cuzk-bench gen-vanilla porep --sector-size 32GiB       (sparse C1, all 10 partitions)
#   3. cuzk-bench prove --partition K --pce --mmap; the public inputs it used compared with the
#      independent Python reference (tests/vectors/porep_inputs.py); cuzk-bench verify --partition K
#      from the summary's values accepts it, and with a flipped value rejects it
#   4. (--daemon) cuzk-daemon with D/porep as its param_cache and memory.total_budget = auto proves
#      the whole sector from Curio's C1 envelope; /status sampled during the run; verified
#   5. the same as 1-3 for a WindowPoSt partition (2349 sectors)
#   6. the same for SnapDeals partition K of a sparse update (gen-vanilla snap --sector-size 32GiB:
#      all 16 partitions' vanilla proofs, prove --partition K --pce --mmap, verify --partition K; a
#      flipped comm_r_new is rejected)
# Output: D/bench-32g.json (step timings and the prover's per-phase lines), logs in D/*.log.
set -euo pipefail
DIR=/work/bench-32g BIN=build/bin THREADS=2 PART=0 DAEMON=0 KEEP=0 PO=1 WI=1 SN=1
while [ $# -gt 0 ]; do
  case $1 in
  --dir) DIR=$2; shift 2 ;;
  --bin) BIN=$2; shift 2 ;;
  --threads) THREADS=$2; shift 2 ;;
  --partition) PART=$2; shift 2 ;;
  --daemon) DAEMON=1; shift ;;
  --keep) KEEP=1; shift ;;
  --skip-porep) PO=0; shift ;;
  --skip-window) WI=0; shift ;;
  --skip-snap) SN=0; shift ;;
  *) sed -n 2,26p "$0"; exit 2 ;;
  esac
done
BIN=$(cd "$BIN" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
J="$DIR/bench-32g.json"
RND=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a1a
declare -A T
now() { date +%s.%N; }
timed() { # name log command...: runs it, records seconds, stops the script on failure
  local name=$1 log=$2 t0 rc; shift 2
  echo "== $name: $*" | tee -a "$DIR/run.log"
  t0=$(now)
  set +e; /usr/bin/time -v "$@" >"$log" 2>&1; rc=$?; set -e
  T[$name]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  echo "   $name: exit $rc, ${T[$name]} s, peak RSS $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log") KiB" |
    tee -a "$DIR/run.log"
  [ "$rc" = 0 ] || { tail -20 "$log"; exit 1; }
}
sj() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([0-9a-f]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -1; }
flip_hex() { if [ "${1:0:1}" = 0 ]; then echo "1${1:1}"; else echo "0${1:1}"; fi; }
df -h "$DIR" | tee -a "$DIR/run.log"

porep() {
  local P="$DIR/porep" S="$DIR/porep/sector"
  mkdir -p "$P"
  ls "$P"/v28-stacked-*.params >/dev/null 2>&1 ||
    timed porep_setup "$DIR/porep-setup.log" "$BIN/cuzk-bench" setup --circuit porep --sector-size 32GiB --out "$P" \
      --threads "$THREADS"
  local PP VK; PP=$(ls "$P"/v28-stacked-*.params); VK=${PP%.params}.vk
  [ -f "$S/summary.json" ] ||
    timed porep_gen_vanilla "$DIR/porep-gen.log" "$BIN/cuzk-bench" gen-vanilla porep --sector-size 32GiB --out "$S"
  timed porep_prove "$DIR/porep-prove.log" "$BIN/cuzk-bench" prove --circuit porep --params "$PP" --c1 "$S/c1.json" \
    --pce "$P/porep-32g.pce" --mmap --partition "$PART" --threads "$THREADS" --out "$DIR/porep-$PART.proof" \
    --inputs-out "$DIR/porep-$PART.inputs"
  # the inputs the prover used == the independent Python reference's partition PART
  python3 "$SRC/tests/vectors/porep_inputs.py" --summary "$S/summary.json" >"$DIR/porep-ref-inputs.txt"
  python3 - "$DIR/porep-ref-inputs.txt" "$DIR/porep-$PART.inputs" "$PART" <<'EOF'
import sys
ref, raw, part = open(sys.argv[1]).read().split("\n"), open(sys.argv[2], "rb").read(), int(sys.argv[3])
parts, cur = [], None
for l in ref:
    if l.startswith("# partition"): cur = []; parts.append(cur)
    elif cur is not None and l and not l.startswith("#"): cur.append(int(l, 16))
mine = [int.from_bytes(raw[i:i + 32], "little") for i in range(0, len(raw), 32)]
assert mine == parts[part], "public inputs differ from the reference"
print("public inputs of partition %d: %d values, equal to the Python reference" % (part, len(mine)))
EOF
  local V=("$BIN/cuzk-bench" verify --circuit porep --sector-size 32GiB --vk "$VK" --comm-r "$(sj comm_r "$S/summary.json")"
    --comm-d "$(sj comm_d "$S/summary.json")" --prover-id "$(sj prover_id "$S/summary.json")"
    --sector-id "$(sj sector_id "$S/summary.json")" --ticket "$(sj ticket "$S/summary.json")" --partition "$PART")
  local SEED; SEED=$(sj seed "$S/summary.json")
  "${V[@]}" --seed "$SEED" --proof "$DIR/porep-$PART.proof" | tee "$DIR/porep-verify.log"
  if "${V[@]}" --seed "$(flip_hex "$SEED")" --proof "$DIR/porep-$PART.proof"; then
    echo "a flipped seed was accepted" >&2; exit 1
  fi
  echo "   a flipped seed is rejected" | tee -a "$DIR/run.log"
  if [ "$DAEMON" = 1 ]; then porep_daemon "$P" "$S" "$VK" "$SEED"; fi
  if [ "$KEEP" = 0 ] && [ "$WI" = 1 ]; then rm -f "$PP"; fi
}

porep_daemon() { # param_cache sector vk seed
  local SOCK="$DIR/cuzk.sock" DLOG="$DIR/daemon.log" DP
  "$BIN/cuzk-daemon" --listen "unix://$SOCK" --status-listen 127.0.0.1:9821 --param-cache "$1" \
    --set memory.total_budget=auto --set srs.allow_test_params=true 2>"$DLOG" &
  DP=$!
  for _ in $(seq 100); do grep -q "cuzk-daemon ready" "$DLOG" && break; sleep 0.2; done
  (while kill -0 "$DP" 2>/dev/null; do curl -s 127.0.0.1:9821/status >>"$DIR/status-samples.jsonl" || true
    echo >>"$DIR/status-samples.jsonl"; sleep 30; done) &
  timed porep_daemon_sector "$DIR/porep-daemon.log" "$BIN/cuzk-bench" single --addr "unix://$SOCK" --kind porep \
    --c1 "$2/c1-envelope.json" --miner-id 1000 --sector "$(sj sector_id "$2/summary.json")" --out "$DIR/porep-sector.proof"
  kill -TERM "$DP"; wait "$DP" || true
  "$BIN/cuzk-bench" verify --circuit porep --sector-size 32GiB --vk "$3" --proof "$DIR/porep-sector.proof" \
    --comm-r "$(sj comm_r "$2/summary.json")" --comm-d "$(sj comm_d "$2/summary.json")" \
    --prover-id "$(sj prover_id "$2/summary.json")" --sector-id "$(sj sector_id "$2/summary.json")" \
    --ticket "$(sj ticket "$2/summary.json")" --seed "$4" | tee "$DIR/porep-daemon-verify.log"
}

window() {
  local W="$DIR/window" S="$DIR/window/sector"
  mkdir -p "$W"
  ls "$W"/v28-proof-of-spacetime-*.params >/dev/null 2>&1 ||
    timed window_setup "$DIR/window-setup.log" "$BIN/cuzk-bench" setup --circuit window-post --sector-size 32GiB \
      --out "$W" --threads "$THREADS"
  local PP VK; PP=$(ls "$W"/v28-proof-of-spacetime-*.params); VK=${PP%.params}.vk
  [ -f "$S/window-post.list" ] ||
    timed window_gen_vanilla "$DIR/window-gen.log" "$BIN/cuzk-bench" gen-vanilla post --sector-size 32GiB \
      --sector 1 --sectors 2349 --randomness $RND --out "$S"
  mapfile -t VAN <"$S/window-post.list" # names relative to the sector directory
  local VA=(); for v in "${VAN[@]}"; do VA+=(--vanilla "$S/$v"); done
  local PCE; PCE=$(ls "$W"/*.pce | head -1) # kept by setup under the daemon's name
  timed window_prove "$DIR/window-prove.log" "$BIN/cuzk-bench" prove --circuit window-post --sector-size 32GiB \
    --params "$PP" --pce "$PCE" --mmap "${VA[@]}" --randomness $RND --miner-id 1000 --threads "$THREADS" \
    --out "$DIR/window.proof" --inputs-out "$DIR/window.inputs"
  mapfile -t SECS <"$S/window-post.sectors"
  local SA=(); for s in "${SECS[@]}"; do SA+=(--sector "$s"); done
  "$BIN/cuzk-bench" verify --circuit window-post --sector-size 32GiB --vk "$VK" --proof "$DIR/window.proof" \
    --randomness $RND --miner-id 1000 "${SA[@]}" | tee "$DIR/window-verify.log"
  if "$BIN/cuzk-bench" verify --circuit window-post --sector-size 32GiB --vk "$VK" --proof "$DIR/window.proof" \
    --randomness "$(flip_hex $RND)" --miner-id 1000 "${SA[@]}"; then
    echo "a flipped randomness was accepted" >&2; exit 1
  fi
  echo "   a flipped randomness is rejected" | tee -a "$DIR/run.log"
  if [ "$KEEP" = 0 ] && [ "$SN" = 1 ]; then rm -f "$PP"; fi
}

snap() {
  local N="$DIR/snap" S="$DIR/snap/update"
  mkdir -p "$N"
  ls "$N"/v28-empty-sector-update-*.params >/dev/null 2>&1 ||
    timed snap_setup "$DIR/snap-setup.log" "$BIN/cuzk-bench" setup --circuit snap --sector-size 32GiB \
      --out "$N" --threads "$THREADS"
  local PP VK PCE; PP=$(ls "$N"/v28-empty-sector-update-*.params); VK=${PP%.params}.vk
  PCE=$(ls "$N"/*.pce | head -1)
  [ -f "$S/vanilla-proofs.json" ] ||
    timed snap_gen_vanilla "$DIR/snap-gen.log" "$BIN/cuzk-bench" gen-vanilla snap --sector-size 32GiB --out "$S" \
      --threads "$THREADS"
  local C=(--comm-r-old "$(sj comm_r_old "$S/summary.json")" --comm-r-new "$(sj comm_r_new "$S/summary.json")"
    --comm-d-new "$(sj comm_d_new "$S/summary.json")")
  timed snap_prove "$DIR/snap-prove.log" "$BIN/cuzk-bench" prove --circuit snap --sector-size 32GiB \
    --params "$PP" --pce "$PCE" --mmap --vanilla "$S/vanilla-proofs.json" "${C[@]}" --partition "$PART" \
    --threads "$THREADS" --out "$DIR/snap-$PART.proof"
  local V=("$BIN/cuzk-bench" verify --circuit snap --sector-size 32GiB --vk "$VK" --proof "$DIR/snap-$PART.proof"
    --partition "$PART")
  "${V[@]}" "${C[@]}" | tee "$DIR/snap-verify.log"
  local NEW; NEW=$(sj comm_r_new "$S/summary.json")
  if "${V[@]}" "${C[@]/$NEW/$(flip_hex "$NEW")}"; then
    echo "a flipped comm_r_new was accepted" >&2; exit 1
  fi
  echo "   a flipped comm_r_new is rejected" | tee -a "$DIR/run.log"
}

[ "$PO" = 1 ] && porep
[ "$WI" = 1 ] && window
[ "$SN" = 1 ] && snap
{
  printf '{"machine":"%s","cpus":%s,"threads":%s,"partition":%s,"seconds":{' \
    "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)" "$(nproc)" "$THREADS" "$PART"
  first=1; for k in "${!T[@]}"; do [ $first = 1 ] || printf ','; printf '"%s":%s' "$k" "${T[$k]}"; first=0; done
  printf '},"prove_lines":['
  first=1; for f in "$DIR"/porep-prove.log "$DIR"/window-prove.log "$DIR"/snap-prove.log; do
    [ -f "$f" ] || continue
    while IFS= read -r l; do [ $first = 1 ] || printf ','; printf '"%s"' "${l//\"/\'}"; first=0; done < <(grep '^prove: ' "$f")
  done
  printf ']}\n'
} >"$J"
cat "$J"
