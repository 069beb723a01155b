#!/usr/bin/env bash
# Command-line tests of cuzk-bench (exit codes and output formats).
# Points come from the committed known-answer vectors (tests/vectors/ec.txt,
# made by @noble/curves): valid ones must print "valid" and the coordinates
# found in their uncompressed encoding; invalid ones "invalid: <reason>" with
# the reason of their class; usage errors exit 2.
set -euo pipefail
BIN=${1:-build/bin}
VEC=$(cd "$(dirname "$0")/.." && pwd)/tests/vectors/ec.txt
. "$(dirname "$0")/../tests/skip.sh"
fail=0 nok=0 nfail=0 nskip=0
check() { # name expected-exit command...   (steps of a second or more print their time)
  local name=$1 want=$2 t0=$EPOCHREALTIME el; shift 2
  set +e; out=$("$@" 2>&1); rc=$?; set -e
  el=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { d = b - a; if (d >= 1) printf " (%.1f s)", d }')
  if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, want $want: $out"; fail=1 nfail=$((nfail + 1))
  else echo "ok   $name$el"; nok=$((nok + 1)); fi
}
expect_out() { # name regex (matched against $out from the last check)
  if ! grep -qE "$2" <<<"$out"; then echo "FAIL $1: output lacks /$2/: $out"; fail=1 nfail=$((nfail + 1)); fi
}
G1=97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
check point-g1-generator 0 "$BIN/cuzk-bench" point --g1 $G1
check point-g1-bad-hex 1 "$BIN/cuzk-bench" point --g1 zz
check point-usage 2 "$BIN/cuzk-bench" point
check micro-unknown 2 "$BIN/cuzk-bench" micro --filter no_such_op
out=$("$BIN/cuzk-bench" point --g1 $G1)
echo "$out" | grep -q '^x=17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb$' || { echo "FAIL point-g1-coords: $out"; fail=1; }

# ---- vector points: compressed and uncompressed, both sign-flag cases --------
if [ ! -r "$VEC" ]; then echo "FAIL: cannot read $VEC"; exit 1; fi
# g1_mul/g2_mul lines: op k comp uncomp.  Take k = 1 (generator), k = r-1
# (-G, the other sign) and a few random multiples.
mapfile -t g1 < <(grep '^g1_mul ' "$VEC" | sed -n '2p;5p;12p;13p;14p')
mapfile -t g2 < <(grep '^g2_mul ' "$VEC" | sed -n '2p;5p;12p;13p;14p')
signs=""
for line in "${g1[@]}"; do
  read -r _ k comp unc <<<"$line"
  x=${unc:0:96} y=${unc:96:96}
  signs+=$(( 16#${comp:0:2} & 0x20 ? 1 : 0 ))
  for enc in "$comp" "0x$unc"; do
    check "point-g1-k=${k:56}-len${#enc}" 0 "$BIN/cuzk-bench" point --g1 "$enc"
    expect_out "point-g1-k=${k:56}-valid" "^valid$"
    expect_out "point-g1-k=${k:56}-x" "^x=$x$"
    expect_out "point-g1-k=${k:56}-y" "^y=$y$"
  done
done
for line in "${g2[@]}"; do
  read -r _ k comp unc <<<"$line"   # uncompressed G2: x.c1 x.c0 y.c1 y.c0
  signs+=$(( 16#${comp:0:2} & 0x20 ? 1 : 0 ))
  for enc in "$comp" "$unc"; do
    check "point-g2-k=${k:56}-len${#enc}" 0 "$BIN/cuzk-bench" point --g2 "$enc"
    expect_out "point-g2-k=${k:56}-valid" "^valid$"
    expect_out "point-g2-k=${k:56}-x.c0" "^x.c0=${unc:96:96}$"
    expect_out "point-g2-k=${k:56}-x.c1" "^x.c1=${unc:0:96}$"
    expect_out "point-g2-k=${k:56}-y.c0" "^y.c0=${unc:288:96}$"
    expect_out "point-g2-k=${k:56}-y.c1" "^y.c1=${unc:192:96}$"
  done
done
case $signs in *0*1*|*1*0*) ;; *) echo "FAIL: vector points cover only one sign-flag case ($signs)"; fail=1 ;; esac
for n in 1 2; do
  read -r _ comp unc < <(grep "^g${n}_inf " "$VEC")
  check "point-g$n-infinity-compressed" 0 "$BIN/cuzk-bench" point --g$n "$comp"
  check "point-g$n-infinity-uncompressed" 0 "$BIN/cuzk-bench" point --g$n "$unc"
done

# ---- invalid encodings: the first vector of each class, exit 1 + reason -------
reason() {
  case $1 in
    length) echo "wrong encoding length" ;;
    compression) echo "compression flag" ;;
    infinity) echo "infinity flag" ;;
    sign) echo "sign flag" ;;
    noncanonical) echo "not canonical" ;;
    not_on_curve) echo "not on the curve" ;;
    subgroup) echo "not in the prime-order subgroup" ;;
  esac
}
for n in 1 2; do
  for cls in length compression infinity sign noncanonical not_on_curve subgroup; do
    read -r _ _ hex note < <(grep "^g${n}_invalid $cls " "$VEC" | head -n 1)
    check "point-g$n-invalid-$cls-$note" 1 "$BIN/cuzk-bench" point --g$n "$hex"
    expect_out "point-g$n-invalid-$cls-reason" "^invalid: .*$(reason $cls)"
  done
  # the other group's compressed generator: 96 B with the compression flag
  # is a malformed uncompressed G1 point; 48 B is no G2 length at all
  other=$(grep "^g$((3 - n))_gen " "$VEC" | cut -d' ' -f2)
  check "point-g$n-given-g$((3 - n))-point" 1 "$BIN/cuzk-bench" point --g$n "$other"
  expect_out "point-g$n-given-other-group-reason" "^invalid: .*$(reason $([ $n = 1 ] && echo compression || echo length))"
done
check point-odd-hex 1 "$BIN/cuzk-bench" point --g1 "${G1}0"
expect_out point-odd-hex-reason "^invalid: odd number of hex digits"
check point-too-long 1 "$BIN/cuzk-bench" point --g2 "$(printf '00%.0s' {1..193})"

# ---- usage errors: exit 2 -------------------------------------------------------
check point-usage-no-group 2 "$BIN/cuzk-bench" point "$G1"
check point-usage-no-hex 2 "$BIN/cuzk-bench" point --g1
check point-usage-two-hex 2 "$BIN/cuzk-bench" point --g1 "$G1" "$G1"
check point-usage-bad-flag 2 "$BIN/cuzk-bench" point --g3 "$G1"
check usage-no-command 2 "$BIN/cuzk-bench"
check usage-unknown-command 2 "$BIN/cuzk-bench" no_such_command
# The Rust cuzk-bench's global options and spellings (no daemon needed: the
# address shows in the connection error; bad values exit 2 before connecting).
check version 0 "$BIN/cuzk-bench" --version
expect_out version-text "^cuzk-bench [0-9]+\.[0-9]+"
check help-command 0 "$BIN/cuzk-bench" help
expect_out help-lists-synth-only "synth-only --c1"
check help-one-command 0 "$BIN/cuzk-bench" help batch
expect_out help-one-command-text "^usage: cuzk-bench batch .*-j C"
check command-help 0 "$BIN/cuzk-bench" preload --help
expect_out command-help-text "^usage: cuzk-bench preload"
check usage-unknown-global 2 "$BIN/cuzk-bench" --no-such-global status
if "$BIN/cuzk-bench" help status >/dev/null 2>&1; then # built with the gRPC client
  check global-addr 1 "$BIN/cuzk-bench" -a unix:///nonexistent-cuzk-bcompat.sock --log-level debug status
  expect_out global-addr-used "nonexistent-cuzk-bcompat"
  check global-addr-http 1 "$BIN/cuzk-bench" --addr http://127.0.0.1:1/ preload -c porep-32g
  expect_out global-addr-http-used "127\.0\.0\.1:1"
  check command-addr-wins 1 env CUZK_ADDR=unix:///nonexistent-a.sock "$BIN/cuzk-bench" status \
    --addr unix:///nonexistent-b.sock
  expect_out command-addr-wins-used "nonexistent-b"
  check rust-type-bad 2 "$BIN/cuzk-bench" single -t bogus --c1 /dev/null
  expect_out rust-type-bad-lists "porep-c2, seal-commit.*wpost.*winningpost"
  for t in porep porep-c2 seal-commit snap snap-deals update wpost window-post windowpost winning winning-post \
    winningpost; do # a good -t gets as far as the missing input
    check rust-type-$t 2 "$BIN/cuzk-bench" single -t $t --sector-num 3
    expect_out rust-type-$t-parsed "^no input"
  done
  check rust-sector-num-bad 2 "$BIN/cuzk-bench" batch --type porep --sector-num x -c 2 -j 1
  expect_out rust-sector-num-bad-why "sector-num: 'x' is not a whole number"
  check rust-batch-c-j 2 "$BIN/cuzk-bench" batch -t porep --vanilla-text x -c 0 -j 1
  expect_out rust-batch-c-j-parsed "count >= 1"
  # stress: each job's registered proof is its own (:N), else derived from its kind and size
  check stress-job-rp-wrong-kind 2 "$BIN/cuzk-bench" stress --duration 1 --sector-size 2KiB \
    --job winning-post:1:x:12
  expect_out stress-job-rp-wrong-kind-why "12 is not a registered proof of that kind and size"
else
  skip_note cli-tests "global-addr, rust-type-*: cuzk-bench built without the gRPC client"; nskip=$((nskip + 1))
fi
check point-usage-both-groups 2 "$BIN/cuzk-bench" point --g1 --g2 "$G1"

# ---- Groth16 round trip through the CLI (setup -> prove -> verify -> export) -----
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
check g16-setup 0 "$BIN/cuzk-bench" setup --circuit chain --size 10 --out "$T" --seed 7
check g16-prove 0 "$BIN/cuzk-bench" prove --params "$T/chain-10.params" --circuit chain --size 10 \
  --out "$T/p" --inputs-out "$T/i" --deterministic
check g16-verify 0 "$BIN/cuzk-bench" verify --vk "$T/chain-10.vk" --proof "$T/p" --inputs "$T/i"
expect_out g16-verify-valid "^valid$"
printf '\x02' | dd of="$T/i" bs=1 count=1 conv=notrunc 2>/dev/null
check g16-verify-bad-input 1 "$BIN/cuzk-bench" verify --vk "$T/chain-10.vk" --proof "$T/p" --inputs "$T/i"
expect_out g16-verify-bad-input-reason "^invalid: "
check g16-prove-params-is-dir 1 "$BIN/cuzk-bench" prove --params "$T" --circuit chain --size 10 \
  --out "$T/p2" --inputs-out "$T/i2"
expect_out g16-prove-params-is-dir-reason "params: "
check g16-verify-usage 2 "$BIN/cuzk-bench" verify --vk "$T/chain-10.vk"
check g16-export 0 "$BIN/cuzk-bench" export-snarkjs --vk "$T/chain-10.vk" --proof "$T/p" --inputs "$T/i" --out "$T/j"
# --backend (cuzk/gpu_groth16.h): a bad value is a usage error; with an OpenCL device (pocl in CI) the
# deterministic chain proof through the device equals the CPU's byte for byte (the four Filecoin kinds:
# tests/test_gpu_groth16.c; PoRep and SnapDeals 2 KiB on pocl: below, with their params)
check g16-prove-backend-bad 2 "$BIN/cuzk-bench" prove --params "$T/chain-10.params" --circuit chain --size 10 \
  --out "$T/pb" --inputs-out "$T/ib" --backend vulkan
expect_out g16-prove-backend-bad-why "expected cpu, opencl or cuda"
HAVE_OPENCL=
"$BIN/cuzk-bench" devices | grep -qE "^opencl: [1-9][0-9]* device" && HAVE_OPENCL=1
if [ -n "$HAVE_OPENCL" ]; then
  check g16-prove-opencl 0 "$BIN/cuzk-bench" prove --params "$T/chain-10.params" --circuit chain --size 10 \
    --out "$T/po" --inputs-out "$T/io" --deterministic --backend opencl --device 0
  expect_out g16-prove-opencl-backend "^backend +opencl:0 "
  "$BIN/cuzk-bench" prove --params "$T/chain-10.params" --circuit chain --size 10 --out "$T/pc" \
    --inputs-out "$T/ic" --deterministic >/dev/null 2>&1
  check g16-prove-opencl-same-bytes 0 cmp "$T/pc" "$T/po"
  check g16-prove-opencl-no-device 1 "$BIN/cuzk-bench" prove --params "$T/chain-10.params" --circuit chain \
    --size 10 --out "$T/pn" --inputs-out "$T/in" --backend opencl --device 99
  expect_out g16-prove-opencl-no-device-why "no device 99"
else
  echo "SKIPPED g16-prove-opencl: no OpenCL device (cuzk-bench devices)"
fi
# ---- FallbackPoSt 2 KiB round trips: gen-vanilla -> setup -> prove -> verify ------
R=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a1a
check post-gen-vanilla 0 "$BIN/cuzk-bench" gen-vanilla post --sector-size 2KiB --sector 1 --randomness $R --out "$T/sec"
COMM_R=$(sed -n 's/.*"comm_r": *"\([0-9a-f]*\)".*/\1/p' "$T/sec/summary.json" | head -1)
for kind in winning window; do
  check post-$kind-setup 0 "$BIN/cuzk-bench" setup --circuit $kind-post --sector-size 2KiB --out "$T/$kind"
  P=$(ls "$T/$kind"/*.params | head -1); VK=$(ls "$T/$kind"/*.vk | head -1)
  check post-$kind-prove 0 "$BIN/cuzk-bench" prove --circuit $kind-post --sector-size 2KiB --params "$P" \
    --vanilla "$T/sec/$kind-post.vproof" --randomness $R --miner-id 1000 --out "$T/$kind.proof" --inputs-out "$T/$kind.in"
  # setup wrote the validation record: the one-shot prove does not validate the points again
  expect_out post-$kind-prove-record "params load [0-9.]+ s \(validation record\)"
  check post-$kind-verify 0 "$BIN/cuzk-bench" verify --circuit $kind-post --sector-size 2KiB --vk "$VK" \
    --proof "$T/$kind.proof" --randomness $R --sector "1:$COMM_R" --miner-id 1000
  expect_out post-$kind-valid "^valid$"
  check post-$kind-verify-wrong-sector 1 "$BIN/cuzk-bench" verify --circuit $kind-post --sector-size 2KiB --vk "$VK" \
    --proof "$T/$kind.proof" --randomness $R --sector "2:$COMM_R" --miner-id 1000
  check post-$kind-verify-generic 0 "$BIN/cuzk-bench" verify --vk "$VK" --proof "$T/$kind.proof" --inputs "$T/$kind.in"
done
# 32 GiB without 32 GiB trees: sparse tree_r_last (only the challenged paths, src/fil/sparse_tree.c); the prover's
# native check (synth parses and verifies every vanilla proof before its SHAPE synthesis) accepts them all
check post-gen-vanilla-32g 0 "$BIN/cuzk-bench" gen-vanilla post --sector-size 32GiB --sector 1 --sectors 3 \
  --randomness $R --out "$T/sec32"
expect_out post-gen-vanilla-32g-out "3 sparse StackedDrgWindow32GiBV1_2 sectors"
W32=(); while read -r f; do W32+=(--vanilla "$T/sec32/$f"); done <"$T/sec32/window-post.list"
check post-32g-window-native 0 "$BIN/cuzk-bench" synth --circuit window-post --sector-size 32GiB "${W32[@]}" \
  --randomness $R --mode shape
check post-32g-winning-native 0 "$BIN/cuzk-bench" synth --circuit winning-post --sector-size 32GiB \
  --vanilla "$T/sec32/winning-post.vproof" --randomness $R --mode shape
dd if=/dev/zero of="$T/sec32/window-post-00002.vproof" bs=1 seek=8 count=32 conv=notrunc 2>/dev/null # comm_r = 0
check post-32g-window-native-bad 1 "$BIN/cuzk-bench" synth --circuit window-post --sector-size 32GiB "${W32[@]}" \
  --randomness $R --mode shape
expect_out post-32g-window-native-bad-why "sector 3: comm_r != Poseidon2"
# the streaming variable-time setup (the default above) and the in-memory constant-time one make
# the same bytes for a Filecoin circuit (the chain circuit's bytes are pinned in test_groth16_setup)
check post-window-setup-ct 0 "$BIN/cuzk-bench" setup --circuit window-post --sector-size 2KiB --out "$T/window-ct" \
  --constant-time
check post-window-setup-ct-same 0 cmp "$(ls "$T/window"/*.params | head -1)" "$(ls "$T/window-ct"/*.params | head -1)"
check post-window-setup-ct-same-vk 0 cmp "$(ls "$T/window"/*.vk | head -1)" "$(ls "$T/window-ct"/*.vk | head -1)"
# the production pipeline for a PoSt partition: WITNESS synthesis + the lean PCE evaluation, mapped params
P=$(ls "$T/window"/*.params | head -1); VK=$(ls "$T/window"/*.vk | head -1)
check post-window-prove-pce 0 "$BIN/cuzk-bench" prove --circuit window-post --sector-size 2KiB --params "$P" \
  --vanilla "$T/sec/window-post.vproof" --randomness $R --miner-id 1000 --out "$T/window-pce.proof" \
  --pce "$T/window/wpost-2k.pce" --mmap
expect_out post-window-prove-pce-lean "synthesis [0-9.]+ s \(WITNESS\), pce a,b .*self-verified"
check post-window-verify-pce 0 "$BIN/cuzk-bench" verify --circuit window-post --sector-size 2KiB --vk "$VK" \
  --proof "$T/window-pce.proof" --randomness $R --sector "1:$COMM_R" --miner-id 1000
# a second streaming setup reuses the PCE the first one kept beside the params
check post-window-setup-again 0 "$BIN/cuzk-bench" setup --circuit window-post --sector-size 2KiB --out "$T/window" \
  --mem-budget 100000 --window-g1 9 --window-g2 7
expect_out post-window-setup-again-pce "using the circuit recorded in"
check post-window-setup-again-same 0 cmp "$(ls "$T/window"/*.params | head -1)" "$(ls "$T/window-ct"/*.params | head -1)"
check post-window-setup-bad-budget 2 "$BIN/cuzk-bench" setup --circuit window-post --sector-size 2KiB --out "$T/w3" \
  --mem-budget lots
check post-verify-bad-hex 2 "$BIN/cuzk-bench" verify --circuit window-post --sector-size 2KiB --vk "$VK" \
  --proof "$T/window.proof" --randomness zz --sector "1:$COMM_R" --miner-id 1000

# ---- helpers shared by the PoRep and SnapDeals sections ------------------------------
# sj KEY FILE: a value of a gen-vanilla summary.json (hex string or number).
sj() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([0-9a-f]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -1; }
# flip_byte FILE OFFSET: xor the byte at OFFSET with 1, in place.
flip_byte() {
  local b
  b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %o $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}
# other_hex HEX: the same length, a different first digit.
other_hex() { if [ "${1:0:1}" = 0 ]; then echo "1${1:1}"; else echo "0${1:1}"; fi; }
# cached_setup NAME DIR CIRCUIT: the 2 KiB TEST params of CIRCUIT, made once
# into DIR by scripts/test-params.sh (which make test runs before its lanes)
cached_setup() {
  check $1-params 0 env "CUZK_${3^^}_TEST_PARAMS=$2" "$(dirname "$0")/test-params.sh" "$BIN" "$3"
}

# ---- PoRep C2 (StackedDRG) ---------------------------------------------------------
# constraints - inputs (our count includes the ONE input, bellperson's does not)
# must equal rust-fil-proofs' counts (filecoin-proofs' constraint tests):
# 2K/8M/512M have 40 public inputs, 32G/64G 328 (~20 s each here, 45 MB).
circuit_counts() { # circuit: reads "size rust-count inputs" lines
  local size want inputs c
  while read -r size want inputs; do
    check $1-circuit-info-$size 0 "$BIN/cuzk-bench" circuit-info --circuit $1 --sector-size "$size" --json
    expect_out $1-circuit-info-$size-inputs "\"inputs\":$inputs,"
    c=$(sed -n 's/.*"constraints":\([0-9]*\),.*/\1/p' <<<"$out")
    if [ -z "$c" ] || [ $((c - inputs)) != "$want" ]; then
      echo "FAIL $1-circuit-info-$size: constraints - inputs = $((${c:-0} - inputs)), rust-fil-proofs: $want"
      fail=1
    fi
  done
}
circuit_counts porep <<'COUNTS'
2KiB 2687921 40
8MiB 3844929 40
512MiB 4423433 40
32GiB 130278541 328
64GiB 131185849 328
COUNTS

# Every 2 KiB seal proof kind -- V1 (0), V1_1 (5), synthetic (10), NI (15): the
# natively sealed sector's C1 satisfies the circuit (synth --mode check).
for rp in 0 5 10 15; do
  check porep-gen-vanilla-rp$rp 0 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 2KiB --registered-proof $rp \
    --out "$T/porep-$rp"
  check porep-synth-check-rp$rp 0 "$BIN/cuzk-bench" synth --circuit porep --c1 "$T/porep-$rp/c1.json" --mode check
done
check porep-synth-check-ni-partition-12 0 "$BIN/cuzk-bench" synth --circuit porep --c1 "$T/porep-15/c1.json" \
  --partition 12 --mode check
check porep-synth-not-c1 1 "$BIN/cuzk-bench" synth --circuit porep --c1 "$T/porep-5/summary.json" --mode check
# challenges spread over 3 threads (cuzk_cs_set_par): the C1 witness still satisfies every row
check porep-synth-check-ni-partition-12-threads 0 "$BIN/cuzk-bench" synth --circuit porep \
  --c1 "$T/porep-15/c1.json" --partition 12 --mode check --threads 3
# The Rust cuzk-bench's synth-only: synth --circuit porep, -i N runs (one timing line each).
check porep-synth-only 0 "$BIN/cuzk-bench" synth-only --c1 "$T/porep-5/c1.json" -i 2 --partition 0 --mode check
check porep-synth-only-runs 0 test "$(grep -c ' check: ' <<<"$out")" = 2
check porep-synth-only-bad-i 2 "$BIN/cuzk-bench" synth-only --c1 "$T/porep-5/c1.json" -i 0
# Sparse C1 without sealing (cuzk_seal_sparse_c1): 32 GiB, all 10 partitions (the C1 needs every one; ~1 s),
# written only once our parser and native verifier accept it; no sector-sized files.
check porep-gen-vanilla-sparse-32g 0 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 32GiB --partitions 0 \
  --out "$T/porep-32g"
expect_out porep-gen-vanilla-sparse-32g-challenges "^partition 0 challenges:( [0-9]+){18}$"
check porep-gen-vanilla-sparse-32g-files 0 test -s "$T/porep-32g/c1-envelope.json" -a ! -e "$T/porep-32g/data.dat"
check porep-gen-vanilla-sparse-32g-proof 0 test "$(sj registered_proof "$T/porep-32g/summary.json")" = 8
check porep-gen-vanilla-sparse-bad-partition 2 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 32GiB \
  --partitions 10 --out "$T/porep-32g-x"
check porep-gen-vanilla-sparse-synthetic 1 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 32GiB \
  --registered-proof 13 --out "$T/porep-32g-x"
expect_out porep-gen-vanilla-sparse-synthetic-why "only interactive PoRep"
# a sparse 2 KiB C1 satisfies the circuit (every constraint evaluated)
check porep-gen-vanilla-sparse-2k 0 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 2KiB --sparse --out "$T/porep-sp"
check porep-synth-check-sparse-2k 0 "$BIN/cuzk-bench" synth --circuit porep --c1 "$T/porep-sp/c1-envelope.json" \
  --mode check

# 2 KiB round trip: setup (cached, ~5 minutes) -> prove -> verify with summary.json's values.
PPC=${CUZK_POREP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-porep-2k}
cached_setup porep-2k "$PPC" porep
PP=$(ls "$PPC"/v28-stacked-proof-of-replication-*.params 2>/dev/null | head -1 || true)
PVK=${PP%.params}.vk
S="$T/porep-5/summary.json"
if [ -f "$PPC/.done-porep-2k" ] && [ -n "$PP" ] && [ -f "$PVK" ]; then
  # default validation (digest): setup wrote the params' validation record, so
  # their ~11 M points are not checked again
  check porep-prove-2k 0 "$BIN/cuzk-bench" prove --circuit porep --params "$PP" --c1 "$T/porep-5/c1.json" \
    --out "$T/porep.proof" --inputs-out "$T/porep.in"
  expect_out porep-prove-2k-record "params load [0-9.]+ s \(validation record\)"
  SEED=$(sj seed "$S")
  pv=("$BIN/cuzk-bench" verify --circuit porep --sector-size 2KiB --vk "$PVK" --comm-r "$(sj comm_r "$S")"
    --comm-d "$(sj comm_d "$S")" --prover-id "$(sj prover_id "$S")" --ticket "$(sj ticket "$S")")
  SID=$(sj sector_id "$S")
  check porep-verify-2k 0 "${pv[@]}" --proof "$T/porep.proof" --sector-id "$SID" --seed "$SEED"
  expect_out porep-verify-2k-valid "^valid$"
  check porep-verify-2k-registered-proof 0 "${pv[@]}" --proof "$T/porep.proof" --sector-id "$SID" \
    --seed "$SEED" --registered-proof 5
  check porep-verify-2k-generic 0 "$BIN/cuzk-bench" verify --vk "$PVK" --proof "$T/porep.proof" --inputs "$T/porep.in"
  check porep-proof-192-bytes 0 test "$(stat -c %s "$T/porep.proof")" = 192
  # the production pipeline: WITNESS synthesis + the lean PCE evaluation, one partition, mapped params
  # (setup keeps the PCE beside the params under the daemon's name; an older cache gets it extracted here)
  PPCE=$PPC/porep-2k.pce
  [ -f "$PPCE" ] || check porep-pce-extract 0 "$BIN/cuzk-bench" pce extract --circuit porep --sector-size 2KiB \
    --out "$PPCE"
  check porep-prove-2k-pce 0 "$BIN/cuzk-bench" prove --circuit porep --params "$PP" --c1 "$T/porep-5/c1.json" \
    --pce "$PPCE" --partition 0 --mmap --deterministic --out "$T/porep-pce.proof"
  expect_out porep-prove-2k-pce-lean "synthesis [0-9.]+ s \(WITNESS\), pce a,b [0-9.]+ s.*peak RssAnon"
  expect_out porep-prove-2k-pce-mapped "\(validation record\), mapped"
  check porep-verify-2k-pce 0 "${pv[@]}" --proof "$T/porep-pce.proof" --sector-id "$SID" --seed "$SEED"
  check porep-verify-2k-pce-partition 0 "${pv[@]}" --proof "$T/porep-pce.proof" --sector-id "$SID" --seed "$SEED" \
    --partition 0
  check porep-verify-2k-pce-partition-wrong-seed 1 "${pv[@]}" --proof "$T/porep-pce.proof" --sector-id "$SID" \
    --seed "$(other_hex "$SEED")" --partition 0
  check porep-verify-2k-pce-partition-out-of-range 2 "${pv[@]}" --proof "$T/porep-pce.proof" --sector-id "$SID" \
    --seed "$SEED" --partition 1
  # the OpenCL backend (pocl here: ~60 s of both cores) with --deterministic proves the
  # same bytes as the CPU's deterministic proof above (which went through the PCE: the
  # direct synthesis on the device equals it), and its proof verifies (issue 21)
  if [ -n "$HAVE_OPENCL" ]; then
    check porep-prove-2k-opencl 0 "$BIN/cuzk-bench" prove --circuit porep --params "$PP" \
      --c1 "$T/porep-5/c1.json" --deterministic --backend opencl --out "$T/porep-opencl.proof"
    expect_out porep-prove-2k-opencl-backend "^backend +opencl:0 "
    check porep-prove-2k-opencl-same-bytes 0 cmp "$T/porep-pce.proof" "$T/porep-opencl.proof"
    check porep-verify-2k-opencl 0 "${pv[@]}" --proof "$T/porep-opencl.proof" --sector-id "$SID" --seed "$SEED"
  else
    echo "SKIPPED porep-prove-2k-opencl: no OpenCL device (cuzk-bench devices)"
  fi
  check porep-prove-2k-bad-partition 2 "$BIN/cuzk-bench" prove --circuit porep --params "$PP" \
    --c1 "$T/porep-5/c1.json" --partition 1 --out "$T/x.proof"
  expect_out porep-prove-2k-bad-partition-reason "has 1 partitions"
  cp "$T/porep.proof" "$T/porep-bad.proof"
  flip_byte "$T/porep-bad.proof" 100
  check porep-verify-2k-flipped-byte 1 "${pv[@]}" --proof "$T/porep-bad.proof" --sector-id "$SID" --seed "$SEED"
  expect_out porep-verify-2k-flipped-byte-reason "^invalid: "
  check porep-verify-2k-wrong-seed 1 "${pv[@]}" --proof "$T/porep.proof" --sector-id "$SID" \
    --seed "$(other_hex "$SEED")"
  expect_out porep-verify-2k-wrong-seed-reason "^invalid: .*does not verify"
  check porep-verify-2k-wrong-sector 1 "${pv[@]}" --proof "$T/porep.proof" --sector-id 2 --seed "$SEED"
  expect_out porep-verify-2k-wrong-sector-reason "^invalid: .*does not verify"
  check porep-verify-bad-hex 2 "${pv[@]}" --proof "$T/porep.proof" --sector-id 1 --seed zz
  expect_out porep-verify-bad-hex-reason "seed must be 64 hex digits"
  check porep-verify-short-hex 2 "${pv[@]}" --proof "$T/porep.proof" --sector-id 1 --seed "${SEED:0:62}"
  check porep-verify-no-seed 2 "${pv[@]}" --proof "$T/porep.proof" --sector-id 1
  check porep-verify-bad-size 2 "${pv[@]/2KiB/3KiB}" --proof "$T/porep.proof" --sector-id 1 --seed "$SEED"
  check porep-prove-no-c1 2 "$BIN/cuzk-bench" prove --circuit porep --params "$PP" --out "$T/x.proof"
else
  echo "FAIL porep-params: no 2 KiB PoRep params in $PPC"
  fail=1
fi

# ---- SnapDeals (EmptySectorUpdate) ----------------------------------------------------
# constraints - inputs must equal rust-fil-proofs' (storage-proofs-update's
# circuit tests and filecoin-proofs' constraint tests): 5 public inputs at
# every size; 32G/64G take ~15-20 s each here.  rust_constraints is the
# gadget-cost formula's (circuit-info exits 1 when synthesis disagrees).
snap_counts() { # [env...]: reads "size rust-count" lines
  local size want c
  while read -r size want; do
    check snap-circuit-info-$size 0 env "$@" "$BIN/cuzk-bench" circuit-info --circuit snap --sector-size "$size" --json
    expect_out snap-circuit-info-$size-inputs "\"inputs\":5,"
    expect_out snap-circuit-info-$size-rust "\"rust_constraints\":$want,"
    c=$(sed -n 's/.*"constraints":\([0-9]*\),.*/\1/p' <<<"$out")
    if [ -z "$c" ] || [ $((c - 5)) != "$want" ]; then
      echo "FAIL snap-circuit-info-$size: constraints - inputs = $((${c:-0} - 5)), rust-fil-proofs: $want"
      fail=1
    fi
  done
}
snap_counts <<'COUNTS'
2KiB 1705039
8MiB 10007503
512MiB 57450479
32GiB 81049499
64GiB 85006101
COUNTS
# storage-proofs-update's test sizes (tests/circuit.rs), enabled by the variable
snap_counts CUZK_SNAP_TEST_SIZES=1 <<'COUNTS'
1KiB 1248389
4KiB 2165109
8KiB 2620359
16KiB 6300021
32KiB 6760091
COUNTS
check snap-circuit-info-test-size-needs-env 2 "$BIN/cuzk-bench" circuit-info --circuit snap --sector-size 1KiB

# 8 MiB: an update of a natively sealed sector; its last partition (3 of 4)
# satisfies the circuit.
check snap-gen-vanilla-porep-8m 0 "$BIN/cuzk-bench" gen-vanilla porep --sector-size 8MiB --out "$T/sealed-8m"
check snap-gen-vanilla-8m 0 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 8MiB --sealed "$T/sealed-8m" \
  --out "$T/snap-8m"
S="$T/snap-8m/summary.json"
check snap-8m-partitions 0 test "$(sj partitions "$S")" = 4
check snap-synth-check-8m-partition-3 0 "$BIN/cuzk-bench" synth --circuit snap --sector-size 8MiB \
  --vanilla "$T/snap-8m/vanilla-proofs.json" --comm-r-old "$(sj comm_r_old "$S")" \
  --comm-r-new "$(sj comm_r_new "$S")" --comm-d-new "$(sj comm_d_new "$S")" --partition 3 --mode check
expect_out snap-synth-check-8m-satisfied "satisfied"

# 2 KiB: an update of the V1_1 sector sealed above, checked, then the round
# trip setup (cached, ~2-3 minutes) -> prove -> verify.
check snap-gen-vanilla-2k 0 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 2KiB --sealed "$T/porep-5" \
  --out "$T/snap-2k"
S="$T/snap-2k/summary.json"
SC=(--comm-r-old "$(sj comm_r_old "$S")" --comm-r-new "$(sj comm_r_new "$S")" --comm-d-new "$(sj comm_d_new "$S")")
check snap-synth-check-2k 0 "$BIN/cuzk-bench" synth --circuit snap --sector-size 2KiB \
  --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" --mode check
# the same witness with the 10 challenges spread over 3 threads: still satisfied
check snap-synth-check-2k-threads 0 "$BIN/cuzk-bench" synth --circuit snap --sector-size 2KiB \
  --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" --mode check --threads 3
expect_out snap-synth-check-2k-threads-satisfied "satisfied"

# Sparse SnapDeals without a sector (cuzk_snap_sparse_make: periodic trees in every rho region, ~1 s at
# 32 GiB): one partition, written only once our parser and native verifier accept it; no
# vanilla-proofs.json for a subset of the partitions.
check snap-gen-vanilla-sparse-32g 0 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 32GiB --partitions 5 \
  --out "$T/snap-32g"
expect_out snap-gen-vanilla-sparse-32g-size "partition-K.bin: [0-9]+ bytes each, 86 challenges"
SS="$T/snap-32g/summary.json"
check snap-gen-vanilla-sparse-32g-files 0 test -s "$T/snap-32g/partition-5.bin" -a ! -e "$T/snap-32g/partition-0.bin" \
  -a ! -e "$T/snap-32g/vanilla-proofs.json"
check snap-gen-vanilla-sparse-32g-summary 0 \
  test "$(sj registered_proof "$SS")/$(sj partitions "$SS")/$(sj partitions_written "$SS")/$(sj h "$SS")" = 3/16/1/10
check snap-gen-vanilla-sparse-bad-partition 2 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 32GiB \
  --partitions 16 --out "$T/snap-32g-x"
check snap-gen-vanilla-sparse-sealed 2 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 64GiB --sealed "$T/porep-5" \
  --out "$T/snap-32g-x"
check snap-gen-vanilla-dense-needs-sealed 2 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 2KiB --out "$T/snap-x"
# gen-vanilla without a subcommand lists all three, with their 32/64 GiB sizes
check gen-vanilla-usage 2 "$BIN/cuzk-bench" gen-vanilla
expect_out gen-vanilla-usage-porep "gen-vanilla porep --sector-size [^ ]*\|32GiB\|64GiB .*--partitions"
expect_out gen-vanilla-usage-snap "gen-vanilla snap --sector-size [^ ]*\|32GiB\|64GiB .*--sparse"
# a sparse 2 KiB update satisfies the circuit (every constraint evaluated)
check snap-gen-vanilla-sparse-2k 0 "$BIN/cuzk-bench" gen-vanilla snap --sector-size 2KiB --sparse --out "$T/snap-sp"
SS="$T/snap-sp/summary.json"
check snap-synth-check-sparse-2k 0 "$BIN/cuzk-bench" synth --circuit snap --sector-size 2KiB \
  --vanilla "$T/snap-sp/vanilla-proofs.json" --comm-r-old "$(sj comm_r_old "$SS")" \
  --comm-r-new "$(sj comm_r_new "$SS")" --comm-d-new "$(sj comm_d_new "$SS")" --mode check
expect_out snap-synth-check-sparse-2k-satisfied "satisfied"
check window-synth-random-threads-json 0 "$BIN/cuzk-bench" synth --circuit window-post --sector-size 2KiB \
  --random-witness --threads 2 --json
expect_out window-synth-random-threads-json-fields '"threads":2,"constraints_per_s":[0-9]+,"constraints_per_cpu_s":[0-9]+,"peak_rss_bytes":[0-9]+'
SPC=${CUZK_SNAP_TEST_PARAMS:-$HOME/.cache/cuzk/test-params-snap-2k}
cached_setup snap-2k "$SPC" snap
SP=$(ls "$SPC"/v28-empty-sector-update-*.params 2>/dev/null | head -1 || true)
SVK=${SP%.params}.vk
if [ -f "$SPC/.done-snap-2k" ] && [ -n "$SP" ] && [ -f "$SVK" ]; then
  # default validation: the params' record from setup, as for PoRep above
  sp=("$BIN/cuzk-bench" prove --circuit snap --sector-size 2KiB --params "$SP")
  sv=("$BIN/cuzk-bench" verify --circuit snap --sector-size 2KiB --vk "$SVK")
  check snap-prove-2k-bincode 0 "${sp[@]}" --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" \
    --out "$T/snap.proof" --inputs-out "$T/snap.in"
  expect_out snap-prove-2k-record "params load [0-9.]+ s \(validation record\)"
  check snap-prove-2k-json 0 "${sp[@]}" --vanilla "$T/snap-2k/vanilla-proofs.json" "${SC[@]}" \
    --out "$T/snap-json.proof"
  check snap-proof-192-bytes 0 test "$(stat -c %s "$T/snap.proof")" = 192
  for f in snap snap-json; do
    check $f-verify-2k 0 "${sv[@]}" --proof "$T/$f.proof" "${SC[@]}"
    expect_out $f-verify-2k-valid "^valid$"
  done
  check snap-verify-2k-registered-proof 0 "${sv[@]}" --proof "$T/snap.proof" "${SC[@]}" --registered-proof 0
  check snap-verify-2k-generic 0 "$BIN/cuzk-bench" verify --vk "$SVK" --proof "$T/snap.proof" --inputs "$T/snap.in"
  cp "$T/snap.proof" "$T/snap-bad.proof"
  flip_byte "$T/snap-bad.proof" 100
  check snap-verify-2k-flipped-byte 1 "${sv[@]}" --proof "$T/snap-bad.proof" "${SC[@]}"
  expect_out snap-verify-2k-flipped-byte-reason "^invalid: "
  NEW=$(sj comm_r_new "$S")
  WC=("${SC[@]/$NEW/$(other_hex "$NEW")}")
  check snap-verify-2k-wrong-comm-r-new 1 "${sv[@]}" --proof "$T/snap.proof" "${WC[@]}"
  expect_out snap-verify-2k-wrong-comm-r-new-reason "^invalid: .*does not verify"
  # the production pipeline on the CLI (what a 32 GiB update proof needs): --partition K, WITNESS
  # synthesis + the lean PCE evaluation, the params mapped; verify --partition K checks that one proof
  check snap-pce-extract-2k 0 "$BIN/cuzk-bench" pce extract --circuit snap --sector-size 2KiB --out "$T/snap.pce"
  check snap-prove-2k-lean 0 "${sp[@]}" --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" --partition 0 \
    --pce "$T/snap.pce" --mmap --deterministic --out "$T/snap-lean.proof"
  expect_out snap-prove-2k-lean-pce "pce"
  # the OpenCL backend's deterministic proof, byte for byte the CPU's through the
  # PCE above (pocl: ~35 s of both cores), and valid
  if [ -n "$HAVE_OPENCL" ]; then
    check snap-prove-2k-opencl 0 "${sp[@]}" --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" \
      --deterministic --backend opencl --out "$T/snap-opencl.proof"
    expect_out snap-prove-2k-opencl-backend "^backend +opencl:0 "
    check snap-prove-2k-opencl-same-bytes 0 cmp "$T/snap-lean.proof" "$T/snap-opencl.proof"
    check snap-verify-2k-opencl 0 "${sv[@]}" --proof "$T/snap-opencl.proof" "${SC[@]}"
  else
    echo "SKIPPED snap-prove-2k-opencl: no OpenCL device (cuzk-bench devices)"
  fi
  check snap-verify-2k-partition 0 "${sv[@]}" --proof "$T/snap-lean.proof" "${SC[@]}" --partition 0
  expect_out snap-verify-2k-partition-valid "^valid$"
  check snap-verify-2k-partition-wrong-comm 1 "${sv[@]}" --proof "$T/snap-lean.proof" "${WC[@]}" --partition 0
  check snap-prove-2k-partition-out-of-range 2 "${sp[@]}" --vanilla "$T/snap-2k/partition-0.bin" "${SC[@]}" \
    --partition 1 --out "$T/x.proof"
  expect_out snap-prove-2k-partition-out-of-range-why "partitions 0-0"
  check snap-prove-2k-wrong-comm-r-new 1 "${sp[@]}" --vanilla "$T/snap-2k/partition-0.bin" "${WC[@]}" \
    --out "$T/x.proof"
  expect_out snap-prove-2k-wrong-comm-r-new-reason "comm_r_new mismatch"
  # a tampered partition proof: comm_c (byte 0), the apex leaf count (byte 32)
  for tamper in "0 comm_r_old mismatch" "32 apex_leafs.len = 9 at byte 32"; do
    cp "$T/snap-2k/partition-0.bin" "$T/tampered.bin"
    flip_byte "$T/tampered.bin" "${tamper%% *}"
    check snap-prove-2k-tampered-byte-${tamper%% *} 1 "${sp[@]}" --vanilla "$T/tampered.bin" "${SC[@]}" \
      --out "$T/x.proof"
    expect_out snap-prove-2k-tampered-byte-${tamper%% *}-reason "${tamper#* }"
  done
  check snap-verify-bad-hex 2 "${sv[@]}" --proof "$T/snap.proof" "${SC[@]:0:3}" zz "${SC[@]:4}"
  expect_out snap-verify-bad-hex-reason "comm-r-new must be 64 hex digits"
  check snap-verify-no-comm-d-new 2 "${sv[@]}" --proof "$T/snap.proof" "${SC[@]:0:4}"
  check snap-prove-no-vanilla 2 "${sp[@]}" "${SC[@]}" --out "$T/x.proof"
else
  echo "FAIL snap-params: no 2 KiB SnapDeals params in $SPC"
  fail=1
fi
# The Rust bench's --vanilla JSON array of base64 and circuit ids: bad forms
# are refused before connecting (exit 2), naming the element / the accepted ids.
if "$BIN/cuzk-bench" help status >/dev/null 2>&1; then
  NOD=(--addr unix:///nonexistent-cuzk-vanilla.sock)
  printf '["AAAA", "AA*A"]' >"$T/va-bad-char.json"
  printf '["AAAA", {"x": 1}]' >"$T/va-object.json"
  printf '["AAAA", "AAAA"' >"$T/va-truncated.json"
  for c in "bad-char:element 1: invalid base64 character 0x2a at offset 2" "object:element 1 is an object" \
    "truncated:JSON syntax error at the end"; do
    check vanilla-json-${c%%:*} 2 "$BIN/cuzk-bench" single -t wpost --vanilla "$T/va-${c%%:*}.json" "${NOD[@]}"
    expect_out vanilla-json-${c%%:*}-why "va-${c%%:*}.json: ${c#*:}"
  done
  printf '["AAAA", "AAAA"]' >"$T/va-good.json" # two 3-byte "proofs": sent, the call fails to connect
  check vanilla-json-good 1 "$BIN/cuzk-bench" single -t wpost --vanilla "$T/va-good.json" "${NOD[@]}"
  expect_out vanilla-json-good-sent "UNAVAILABLE"
  check circuit-id-unknown 2 "$BIN/cuzk-bench" preload -c porep-33g "${NOD[@]}"
  expect_out circuit-id-unknown-lists "accepted: .*porep-32g, porep-64g, wpost-32g, winning-32g, snap-32g, snap-64g"
  check circuit-id-rust-name 1 "$BIN/cuzk-bench" evict -c window-post-32GiB "${NOD[@]}"
  expect_out circuit-id-rust-name-sent "UNAVAILABLE"
  check batch-vk-missing 2 "$BIN/cuzk-bench" batch -t test --vanilla-text n=16 --vk "$T/no-such.vk" "${NOD[@]}"
  expect_out batch-vk-missing-why "batch: .*vk $T/no-such.vk"
fi
# Pre-compiled constraint evaluator files (docs/pce.md): extract, info, verify; a
# flipped byte is refused; another circuit's file is refused.
check pce-extract-winning-2k 0 "$BIN/cuzk-bench" pce extract --circuit winning-post --sector-size 2KiB --out "$T/w.pce"
check pce-info 0 "$BIN/cuzk-bench" pce info "$T/w.pce"
expect_out pce-info-id "circuit +winning-2k"
check pce-verify 0 "$BIN/cuzk-bench" pce verify "$T/w.pce" --threads 2
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[600]^=1; open(sys.argv[2],'wb').write(b)" "$T/w.pce" "$T/bad.pce"
check pce-verify-corrupt 1 "$BIN/cuzk-bench" pce verify "$T/bad.pce"
expect_out pce-verify-corrupt-why "body checksum mismatch"
check pce-extract-unknown 2 "$BIN/cuzk-bench" pce extract --circuit porep --sector-size 3KiB
check pce-synth-other-circuit 1 "$BIN/cuzk-bench" synth --circuit porep --sector-size 2KiB --random-witness --pce "$T/w.pce"
expect_out pce-synth-other-circuit-why "recorded for another circuit"
# a PoSt random witness through the PCE (the perf gate's WindowPoSt case uses it)
check pce-synth-winning-random 0 "$BIN/cuzk-bench" synth --circuit winning-post --sector-size 2KiB \
  --random-witness --pce "$T/w.pce"
expect_out pce-synth-winning-random-line "winning-2k witness\+pce: [0-9]+ constraints"
# synth --repeat: a line per iteration; the buffers are reused from the second on (--no-reuse: never)
check pce-extract-porep-2k 0 "$BIN/cuzk-bench" pce extract --circuit porep --sector-size 2KiB --out "$T/p.pce"
check pce-synth-repeat 0 "$BIN/cuzk-bench" synth --circuit porep --sector-size 2KiB --random-witness \
  --pce "$T/p.pce" --repeat 2
expect_out pce-synth-repeat-reused "iteration 2/2: .*buffers reused"
check pce-synth-repeat-no-reuse 0 "$BIN/cuzk-bench" synth --circuit porep --sector-size 2KiB \
  --random-witness --pce "$T/p.pce" --repeat 2 --no-reuse
expect_out pce-synth-repeat-fresh "iteration 2/2: .*fresh buffers"
check pce-synth-repeat-bad 2 "$BIN/cuzk-bench" synth --circuit porep --sector-size 2KiB --random-witness \
  --pce "$T/p.pce" --repeat 0
echo "cli-tests: $nok commands ok, $nfail checks failed, $nskip skipped"
exit $fail
