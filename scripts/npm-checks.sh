#!/usr/bin/env bash
# Checks that need node + npm test tools pinned in tests/package.json
# (run by `make test`):
#  - the committed known-answer vectors (tests/vectors/*.txt) are exactly what
#    tests/vectors/gen.mjs produces with the pinned @noble/curves (and
#    porep_inputs.txt what tests/vectors/porep_inputs.py produces): regenerate
#    into a temporary folder and diff.
# Without node/npm this prints SKIPPED and succeeds (the C tests read the
# committed files and never need node) -- except under CI=true, where a
# missing independent reference fails the run (tests/skip.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/skip.sh
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  skip_ref npm-checks "node/npm not found (apt-get install -y nodejs npm to enable)" || exit 1
  echo "npm-checks: 0 ok, 0 failed, 1 skipped"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -d tests/node_modules/@noble/curves ]; then
  echo "npm-checks: installing pinned test tools (npm ci --prefix tests)"
  if ! npm ci --prefix tests --no-audit --no-fund >/dev/null 2>"$tmp/npm-ci.log"; then
    # no registry (offline machine): the committed vectors still drive the C tests
    skip_ref npm-checks "npm ci --prefix tests failed: $(tail -n 3 "$tmp/npm-ci.log" | tr '\n' ' ')" || exit 1
    echo "npm-checks: 0 ok, 0 failed, 1 skipped"
    exit 0
  fi
fi
want=$(node -p 'require("./tests/package.json").dependencies["@noble/curves"]')
have=$(node -p 'require("./tests/node_modules/@noble/curves/package.json").version')
if [ "$want" != "$have" ]; then
  echo "npm-checks: FAIL: tests/node_modules has @noble/curves $have, package.json pins $want (run: npm ci --prefix tests)"
  exit 1
fi
mkdir "$tmp/out"
if ! node tests/vectors/gen.mjs "$tmp/out"; then
  need=$(node -p 'require("./tests/node_modules/@noble/curves/package.json").engines.node' 2>/dev/null || echo '?')
  echo "npm-checks: FAIL: tests/vectors/gen.mjs failed (node $(node --version); @noble/curves wants node $need)"
  exit 1
fi
fail=0
for f in "$tmp"/out/*.txt; do
  name=$(basename "$f")
  if ! cmp -s "$f" "tests/vectors/$name"; then
    echo "npm-checks: FAIL: tests/vectors/$name differs from what gen.mjs produces:"
    diff "tests/vectors/$name" "$f" | head -n 5 | cut -c1-160
    fail=1
  fi
done
# Vectors with their own committed generator (not gen.mjs): regenerate and
# compare the same way.  porep_inputs.txt: the stdlib-only Python reference
# of PoRep public inputs and parent graphs.
other_generated="porep_inputs.txt"
if command -v python3 >/dev/null; then
  if ! python3 tests/vectors/porep_inputs.py --write "$tmp/porep_inputs.txt" >/dev/null ||
     ! cmp -s "$tmp/porep_inputs.txt" tests/vectors/porep_inputs.txt; then
    echo "npm-checks: FAIL: tests/vectors/porep_inputs.txt differs from what porep_inputs.py produces"
    fail=1
  fi
else
  skip_ref npm-checks "python3 missing: tests/vectors/porep_inputs.txt not regenerated" || fail=1
  skipped=1
fi
for f in tests/vectors/*.txt; do
  case " $other_generated " in *" $(basename "$f") "*) continue ;; esac
  [ -e "$tmp/out/$(basename "$f")" ] || { echo "npm-checks: FAIL: $f is not produced by gen.mjs"; fail=1; }
done
[ $fail = 0 ] && echo "npm-checks: ok: tests/vectors/*.txt match gen.mjs with @noble/curves $have and porep_inputs.py"
echo "npm-checks: $((fail ? 0 : 1)) ok, $fail failed, ${skipped:-0} skipped"
exit $fail
