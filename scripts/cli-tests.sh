#!/usr/bin/env bash
# Command-line tests of cuzk-bench (exit codes and output formats).
set -euo pipefail
BIN=${1:-build/bin}
fail=0
check() { # name expected-exit command...
  local name=$1 want=$2; shift 2
  set +e; out=$("$@" 2>&1); rc=$?; set -e
  if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, want $want: $out"; fail=1; else echo "ok   $name"; fi
}
G1=97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
check point-g1-generator 0 "$BIN/cuzk-bench" point --g1 $G1
check point-g1-bad-hex 1 "$BIN/cuzk-bench" point --g1 zz
check point-usage 2 "$BIN/cuzk-bench" point
check micro-unknown 2 "$BIN/cuzk-bench" micro --filter no_such_op
out=$("$BIN/cuzk-bench" point --g1 $G1)
echo "$out" | grep -q '^x=17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb$' || { echo "FAIL point-g1-coords: $out"; fail=1; }
exit $fail
