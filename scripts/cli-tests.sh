#!/usr/bin/env bash
# Command-line tests of cuzk-bench (exit codes and output formats).
# Points come from the committed known-answer vectors (tests/vectors/ec.txt,
# made by @noble/curves): valid ones must print "valid" and the coordinates
# found in their uncompressed encoding; invalid ones "invalid: <reason>" with
# the reason of their class; usage errors exit 2.
set -euo pipefail
BIN=${1:-build/bin}
VEC=$(cd "$(dirname "$0")/.." && pwd)/tests/vectors/ec.txt
fail=0
check() { # name expected-exit command...
  local name=$1 want=$2; shift 2
  set +e; out=$("$@" 2>&1); rc=$?; set -e
  if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, want $want: $out"; fail=1; else echo "ok   $name"; fi
}
expect_out() { # name regex (matched against $out from the last check)
  if ! grep -qE "$2" <<<"$out"; then echo "FAIL $1: output lacks /$2/: $out"; fail=1; fi
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
# ---- FallbackPoSt 2 KiB round trips: gen-vanilla -> setup -> prove -> verify ------
R=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a1a
check post-gen-vanilla 0 "$BIN/cuzk-bench" gen-vanilla post --sector-size 2KiB --sector 1 --randomness $R --out "$T/sec"
COMM_R=$(sed -n 's/.*"comm_r": *"\([0-9a-f]*\)".*/\1/p' "$T/sec/summary.json" | head -1)
for kind in winning window; do
  check post-$kind-setup 0 "$BIN/cuzk-bench" setup --circuit $kind-post --sector-size 2KiB --out "$T/$kind"
  P=$(ls "$T/$kind"/*.params | head -1); VK=$(ls "$T/$kind"/*.vk | head -1)
  check post-$kind-prove 0 "$BIN/cuzk-bench" prove --circuit $kind-post --sector-size 2KiB --params "$P" \
    --vanilla "$T/sec/$kind-post.vproof" --randomness $R --miner-id 1000 --out "$T/$kind.proof" --inputs-out "$T/$kind.in"
  check post-$kind-verify 0 "$BIN/cuzk-bench" verify --circuit $kind-post --sector-size 2KiB --vk "$VK" \
    --proof "$T/$kind.proof" --randomness $R --sector "1:$COMM_R" --miner-id 1000
  expect_out post-$kind-valid "^valid$"
  check post-$kind-verify-wrong-sector 1 "$BIN/cuzk-bench" verify --circuit $kind-post --sector-size 2KiB --vk "$VK" \
    --proof "$T/$kind.proof" --randomness $R --sector "2:$COMM_R" --miner-id 1000
  check post-$kind-verify-generic 0 "$BIN/cuzk-bench" verify --vk "$VK" --proof "$T/$kind.proof" --inputs "$T/$kind.in"
done
check post-verify-bad-hex 2 "$BIN/cuzk-bench" verify --circuit window-post --sector-size 2KiB --vk "$VK" \
  --proof "$T/window.proof" --randomness zz --sector "1:$COMM_R" --miner-id 1000
exit $fail
