#!/usr/bin/env bash
# Interop check: snarkjs 0.7.6 verifies proofs made by cuzk.
#
#   tests/snarkjs/run.sh [BIN_DIR]        (default build/bin)
#
# For two circom circuits (a hand-made one with two public inputs and one
# output, and the anchor chain circuit), compiled with circom2 --prime
# bls12381: snarkjs computes the witness, cuzk-bench makes TEST parameters
# from the .r1cs, proves from .r1cs + .wtns, verifies itself, exports the
# snarkjs JSON, and `snarkjs groth16 verify` must say OK.  A tampered public
# input must be rejected by both.  Without node/npm it prints SKIPPED and
# exits 0 (1 under CI=true: tests/skip.sh); packages pinned in tests/snarkjs/package.json (+ lock) are
# installed with `npm ci` when missing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "${1:-$ROOT/build/bin}" && pwd)
CUZK="$BIN/cuzk-bench"

. "$ROOT/tests/skip.sh"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  skip_ref "snarkjs interop" "node/npm not found (apt-get install -y nodejs npm to enable)" || exit 1
  echo "snarkjs interop: 0 ok, 0 failed, 1 skipped"
  exit 0
fi
[ -x "$CUZK" ] || { echo "snarkjs interop: FAIL: $CUZK not built"; exit 1; }
if [ ! -x "$HERE/node_modules/.bin/snarkjs" ] || [ ! -x "$HERE/node_modules/.bin/circom2" ]; then
  echo "snarkjs interop: installing pinned snarkjs/circom2 (npm ci)"
  if ! (cd "$HERE" && npm ci --no-audit --no-fund >/dev/null 2>&1); then
    skip_ref "snarkjs interop" "npm ci failed (offline?); run 'cd tests/snarkjs && npm ci'" || exit 1
    echo "snarkjs interop: 0 ok, 0 failed, 1 skipped"
    exit 0
  fi
fi
SNARKJS="$HERE/node_modules/.bin/snarkjs"
CIRCOM="$HERE/node_modules/.bin/circom2"
ver=$(node -p 'require(process.argv[1]).version' "$HERE/node_modules/snarkjs/package.json")
[ "$ver" = "0.7.6" ] || { echo "snarkjs interop: FAIL: snarkjs $ver installed, 0.7.6 pinned"; exit 1; }

WORK=$(mktemp -d /tmp/cuzk-snarkjs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail=0 nok=0 nfail=0

run_case() { # name circom-source input-json expected-public-json
  local name=$1 src=$2 input=$3 want=$4 d="$WORK/$1"
  mkdir -p "$d"
  printf '%s\n' "$src" >"$d/$name.circom"
  if ! (cd "$d" && "$CIRCOM" "$name.circom" --r1cs --wasm --prime bls12381 -o . >compile.log 2>&1); then
    nfail=$((nfail + 1)); echo "FAIL $name: circom2 compile"; cat "$d/compile.log"; fail=1; return
  fi
  printf '%s\n' "$input" >"$d/input.json"
  "$SNARKJS" wtns calculate "$d/${name}_js/$name.wasm" "$d/input.json" "$d/w.wtns" >/dev/null
  "$CUZK" setup --r1cs "$d/$name.r1cs" --out "$d/keys" --seed "snarkjs-$name" >/dev/null 2>&1 ||
    { nfail=$((nfail + 1)); echo "FAIL $name: cuzk setup"; fail=1; return; }
  if ! "$CUZK" prove --params "$d/keys/$name.params" --r1cs "$d/$name.r1cs" --wtns "$d/w.wtns" \
      --out "$d/proof.bin" --inputs-out "$d/inputs.bin" >"$d/prove.log" 2>&1; then
    nfail=$((nfail + 1)); echo "FAIL $name: cuzk prove"; cat "$d/prove.log"; fail=1; return
  fi
  "$CUZK" verify --vk "$d/keys/$name.vk" --proof "$d/proof.bin" --inputs "$d/inputs.bin" 2>/dev/null |
    grep -qx valid || { nfail=$((nfail + 1)); echo "FAIL $name: cuzk verify"; fail=1; }
  "$CUZK" export-snarkjs --vk "$d/keys/$name.vk" --proof "$d/proof.bin" --inputs "$d/inputs.bin" \
    --out "$d/json" >/dev/null || { nfail=$((nfail + 1)); echo "FAIL $name: export"; fail=1; return; }
  # public signals: outputs first, then public inputs (snarkjs order)
  local got
  got=$(node -e 'console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1]))))' "$d/json/public.json")
  [ "$got" = "$want" ] || { nfail=$((nfail + 1)); echo "FAIL $name: public.json $got, want $want"; fail=1; }
  if "$SNARKJS" groth16 verify "$d/json/verification_key.json" "$d/json/public.json" \
      "$d/json/proof.json" >"$d/verify.log" 2>&1 && grep -q "OK" "$d/verify.log"; then
    nok=$((nok + 1)); echo "ok   $name: snarkjs groth16 verify accepts the cuzk proof"
  else
    nfail=$((nfail + 1)); echo "FAIL $name: snarkjs groth16 verify"; cat "$d/verify.log"; fail=1
  fi
  # tamper: first public signal + 1 must be rejected by snarkjs
  node -e 'const f=process.argv[1],p=JSON.parse(require("fs").readFileSync(f));p[0]=(BigInt(p[0])+1n).toString();require("fs").writeFileSync(f,JSON.stringify(p))' "$d/json/public.json"
  if "$SNARKJS" groth16 verify "$d/json/verification_key.json" "$d/json/public.json" \
      "$d/json/proof.json" >"$d/verify_bad.log" 2>&1 && grep -q "OK" "$d/verify_bad.log"; then
    nfail=$((nfail + 1)); echo "FAIL $name: snarkjs accepted a tampered public input"; fail=1
  else
    nok=$((nok + 1)); echo "ok   $name: snarkjs rejects a tampered public input"
  fi
}

MULTI='pragma circom 2.0.0;
template Multi() {
    signal input a;
    signal input b;
    signal input c;
    signal output y;
    signal t;
    t <== a * b;
    y <== t * c + a;
}
component main {public [a, b]} = Multi();'
# y = 3*5*7 + 3 = 108; public.json = [y, a, b]
run_case multi "$MULTI" '{"a": "3", "b": "5", "c": "7"}' '["108","3","5"]'

CHAIN=$(sed 's/__N__/20/' "$ROOT/tests/snarkjs/chain.circom.tmpl")
# x_{i+1} = x_i^2 + 7 from x = 3, 20 steps, mod r: computed by node below
WANT=$(node -e 'const r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;let x=3n;for(let i=0;i<20;i++)x=(x*x+7n)%r;console.log(JSON.stringify([x.toString()]))')
run_case chain "$CHAIN" '{"x": "3"}' "$WANT"

[ $fail = 0 ] && echo "snarkjs interop: all passed" || echo "snarkjs interop: FAILED"
echo "snarkjs interop: $nok ok, $nfail failed, 0 skipped"
exit $fail
