#!/usr/bin/env bash
# The end of make test: every check that did not run, from $CUZK_SKIP_LOG
# (tests/skip.sh and the C test harness append one line per skip; the
# harness also adds one line per executable with skips, "SKIPPED exe: S of
# N cases skipped (names); P passed" -- ctest shows such an executable as
# Passed when P > 0, so this list is where its skips are seen).
#
#   tests/skip-summary.sh LOG
log=${1:-${CUZK_SKIP_LOG:-}}
if [ -z "$log" ] || [ ! -s "$log" ]; then
  echo "make test: nothing skipped"
  exit 0
fi
per_exe='^SKIPPED [^ ]+: [0-9]+ of [0-9]+ cases skipped'
n=$(sort -u "$log" | grep -Evc "$per_exe")
echo "make test: $n checks SKIPPED (not run, not passed):"
sort -u "$log" | grep -Ev "$per_exe" | sed 's/^/  /'
if grep -Eq "$per_exe" "$log"; then
  echo "make test: executables with skipped cases (the rest of their cases passed):"
  sort -u "$log" | grep -E "$per_exe" | sed 's/^/  /'
fi
exit 0
