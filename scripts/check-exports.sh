#!/usr/bin/env bash
# Exported symbols of libcuzk.a must start with cuzk_ (style.md, "clean
# exports").  The layers written since the rule (seal, gadgets, circuits)
# must be clean: a stray symbol there fails the run.  The older layers'
# remaining debt is counted and printed so it can only go down.
#   scripts/check-exports.sh BUILD_DIR
set -euo pipefail
B=${1:-build}
strict=(seal gadgets circuits)
bad=0
for layer in "${strict[@]}"; do
  d="$B/src/$layer/CMakeFiles/cuzk_$layer.dir"
  [ -d "$d" ] || { echo "check-exports: $d missing (build first)" >&2; exit 1; }
  syms=$(find "$d" -name '*.o' -print0 | xargs -0 nm -g --defined-only | awk 'NF == 3 && $2 ~ /[TDBRC]/ {print $3}' | grep -v '^cuzk_' || true)
  if [ -n "$syms" ]; then
    echo "check-exports: layer $layer exports symbols without the cuzk_ prefix:" >&2
    echo "$syms" | sed 's/^/  /' >&2
    bad=1
  fi
done
lib="$B/lib/libcuzk.a"
debt=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /[TDBRC]/ {print $3}' | grep -v -c '^\(cuzk_\|CUZK_\)' || true)
echo "check-exports: seal, gadgets, circuits clean; older layers still export $debt symbols without cuzk_ (to rename)"
exit $bad
