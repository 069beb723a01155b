#!/bin/sh
# Regenerates the circom test files in this folder (tests/test_circom.c reads them).
# Tools: circom2 0.2.23 from npm (circom compiler 2.2.3) and node:
#   npm install --prefix /tmp/h6npm circom2@0.2.23
#   CIRCOM2_BIN=/tmp/h6npm/node_modules/.bin sh tests/vectors/circom/gen.sh
# chain4.circom is shared/tools/snarkjs-anchor/chain.circom.tmpl with __N__ = 4
# (compiled with circom's default simplification, like the snarkjs anchor);
# mix.circom is compiled with --O0 so its linear constraint stays.
set -e
BIN=${CIRCOM2_BIN:-/tmp/h6npm/node_modules/.bin}
cd "$(dirname "$0")"
T=$(mktemp -d)
"$BIN/circom2" chain4.circom --r1cs --wasm --prime bls12381 -o "$T"
node "$T/chain4_js/generate_witness.js" "$T/chain4_js/chain4.wasm" chain4.input.json chain4.wtns
cp "$T/chain4.r1cs" .
"$BIN/circom2" mix.circom --O0 --r1cs --wasm --prime bls12381 -o "$T"
node "$T/mix_js/generate_witness.js" "$T/mix_js/mix.wasm" mix.input.json mix.wtns
cp "$T/mix.r1cs" .
rm -rf "$T"
